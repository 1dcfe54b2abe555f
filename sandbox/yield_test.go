package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBackgroundCommandIdlesWhileForegroundRuns: where core may make cpu
// cgroups, a background command runs in one of its own, at nice 10's
// weight; while a foreground command of the same Sandbox runs, that
// cgroup is idle, and once the foreground command ended it has its
// weight again.
func TestBackgroundCommandIdlesWhileForegroundRuns(t *testing.T) {
	requireBwrap(t)
	parents := limit.FindCgroupParents()
	if parents.CPU == "" {
		t.Skip("no cpu cgroup core may make here")
	}
	t.Parallel()
	ws := newWorkspace(t)
	for _, name := range []string{"bg", "fg"} {
		require.NoError(t, syscall.Mkfifo(filepath.Join(ws, name), 0o644))
	}
	sb := New(Config{Home: sharedHome, Mode: ModeBwrap, Path: os.Getenv("PATH")})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	bgDone := make(chan Result, 1)
	go func() {
		// Held until the test writes its FIFO. At its low weight on a
		// machine loaded by the suite beside stress-ng it may wait long
		// for the CPU: the test's patience, not a minute.
		r, err := sb.Run(ctx, []string{"cat", "bg"}, RunOptions{Workspace: ws, Background: true, Timeout: testkit.Patience})
		if err != nil {
			r.Output += "\nrun: " + err.Error()
		}
		bgDone <- r
	}()
	var dir string
	var ended *Result // the background command, should it end before it is seen
	require.Eventually(t, func() bool {
		select {
		case r := <-bgDone:
			ended = &r
			return true
		default:
		}
		for _, pid := range withArg(ws) {
			for _, p := range descendants(pid) {
				if cmdline(p) == "cat bg " {
					dir = cpuCgroupOf(t, p, parents)
					return true
				}
			}
		}
		return false
	}, testkit.Patience, 20*time.Millisecond, "the background command to start")
	require.Nil(t, ended, "the background command ended before it was seen running")
	require.Contains(t, filepath.Base(dir), "core-sandbox-", "the background command runs in no cpu cgroup of its own")
	assert.Equal(t, "0", cgroupValue(t, dir, "cpu.idle"), "idle with no foreground command")
	weight := "cpu.shares"
	want := fmt.Sprint(limit.BackgroundShares)
	if parents.CPUV2 {
		weight, want = "cpu.weight.nice", fmt.Sprint(limit.BackgroundNice)
	}
	assert.Equal(t, want, cgroupValue(t, dir, weight), "the background command's weight")

	fgDone := make(chan Result, 1)
	go func() {
		r, _ := sb.Run(ctx, []string{"cat", "fg"}, RunOptions{Workspace: ws, Timeout: time.Minute})
		fgDone <- r
	}()
	assert.Eventually(t, func() bool { return cgroupValue(t, dir, "cpu.idle") == "1" }, testkit.Patience, 10*time.Millisecond,
		"the background command's cgroup to be idle while a foreground command runs")
	release(t, filepath.Join(ws, "fg"))
	r := testkit.Receive(t, fgDone, "the foreground command to end")
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Equal(t, "0", cgroupValue(t, dir, "cpu.idle"), "the background command's cgroup stayed idle after the foreground command")
	assert.Equal(t, want, cgroupValue(t, dir, weight), "the background command's weight after the foreground command")

	release(t, filepath.Join(ws, "bg"))
	r = testkit.Receive(t, bgDone, "the background command to end")
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Zero(t, sb.yield.Tracked(), "the ended command's cgroup is still tracked")
}

// cpuCgroupOf is the directory of a process's cpu cgroup.
func cpuCgroupOf(t *testing.T, pid int, parents limit.CgroupParents) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	require.NoError(t, err)
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		v2 := parts[0] == "0" && parts[1] == ""
		if v2 == parents.CPUV2 && (v2 || slices.Contains(strings.Split(parts[1], ","), "cpu")) {
			return filepath.Join(limit.CgroupMount(string(mounts), "cpu", v2), parts[2])
		}
	}
	t.Fatalf("no cpu cgroup in %s", b)
	return ""
}

// cgroupValue reads a cgroup's file; "" when it is gone.
func cgroupValue(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// release lets a command reading the FIFO at path end.
func release(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("go\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
