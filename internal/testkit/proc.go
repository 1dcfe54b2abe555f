package testkit

import (
	"os"
	"path/filepath"
	"strconv"
)

// Processes lists the host pids whose command line (its arguments, each
// ended by a NUL byte, as /proc shows it) match says is one a test looks
// for.
func Processes(match func(cmdline string) bool) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && match(string(cmdline)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Sleepers lists the host pids running "sleep <token>": what a test
// starts, confined, to see whether the confinement ends it (a token of its
// own keeps other tests' sleeps out). It matches the sleep itself, not the
// bwrap whose arguments hold the same words.
func Sleepers(token string) []int {
	return Processes(func(cmdline string) bool { return cmdline == "sleep\x00"+token+"\x00" })
}
