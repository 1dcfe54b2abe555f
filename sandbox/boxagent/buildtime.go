package boxagent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Time for cold builds: a command's timeout counts the time it runs, not
// the time it compiles. A go test in a fresh build cache may compile its
// dependencies for minutes before a test runs; killing it at the shell
// timeout then proves nothing about the code. So, for a command given a
// BuildCeiling, the clock samples the command's processes and a moment
// counts as compiling when a compiler runs among them (isCompiler: the go
// command's compile, link, asm, cgo and vet, rustc, the C toolchain's
// stages) or a go command runs with no code under it (compiling); that
// time is not counted against its Timeout, and the BuildCeiling bounds the
// whole run, compiling or not. Output, or a growing cache, is not taken
// for progress: a test prints as a compile does, and a cache that grows
// says nothing of the test binary that runs beside it.

// BuildCeilingFactor is how many times its timeout a command that
// compiles may run in all (BuildCeiling).
const BuildCeilingFactor = 4

// BuildCeiling is the hard ceiling of a command with the given timeout:
// what it runs in all, compiling or not.
func BuildCeiling(timeout time.Duration) time.Duration {
	return BuildCeilingFactor * timeout
}

// isCompiler reports whether a process of this name (the kernel's comm,
// at most 15 bytes) is a compiler or linker at work for a build: the go
// command's tools, rustc, and the C toolchain's stages as cgo, cargo's
// cc crate and node-gyp run them. Test binaries, interpreters and
// build scripts are not.
func isCompiler(comm string) bool {
	switch comm {
	case "compile", "link", "asm", "cgo", "vet", // the go command's tools
		"rustc",                                       // cargo's
		"cc", "gcc", "g++", "c++", "clang", "clang++", // the C drivers
		"cc1", "cc1plus", "as", "ld", "collect2", "ld.gold", "ld.bfd", "ld.lld", "lto1":
		return true
	}
	return false
}

// proc is one process as /proc/<pid>/stat tells it.
type proc struct {
	pid, ppid int
	comm      string
}

// parseStat reads a process's pid, parent and name from its stat line
// (parseProcStat); ok is false for a line that is not one.
func parseStat(b []byte) (p proc, ok bool) {
	pid, ppid, ok := parseProcStat(b)
	if !ok {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, comm: string(b[bytes.IndexByte(b, '(')+1 : bytes.LastIndexByte(b, ')')])}, true
}

// readProcs reads every process of a proc file system; one that ended
// meanwhile, or whose line does not parse, is left out.
func readProcs(dir string) []proc {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var procs []proc
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "stat"))
		if err != nil || len(b) > 4096 {
			continue
		}
		if p, ok := parseStat(b); ok {
			procs = append(procs, p)
		}
	}
	return procs
}

// compiling reports whether root, or one of its descendants in procs, is
// building at this moment: a compiler runs among them, or a go command
// runs with nothing under it but compilers, go commands and its cache
// program (isCacheProg): its own work between compiles (loading packages,
// hashing, the cache) is the build's too. A go command with anything else
// under it (a test binary, go run's program, a generator) runs code, and
// that is the command's own time.
func compiling(procs []proc, root int, isCacheProg func(pid int) bool) bool {
	children := map[int][]proc{}
	var self *proc
	for i, p := range procs {
		children[p.ppid] = append(children[p.ppid], p)
		if p.pid == root {
			self = &procs[i]
		}
	}
	if self == nil {
		return false
	}
	type item struct {
		p       proc
		underGo bool
	}
	seen := map[int]bool{}
	goRuns, codeUnderGo := false, false
	queue := []item{{p: *self}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if seen[it.p.pid] {
			continue
		}
		seen[it.p.pid] = true
		switch {
		case isCompiler(it.p.comm):
			return true
		case it.p.comm == "go":
			goRuns = true
		case it.underGo && !isCacheProg(it.p.pid):
			codeUnderGo = true
		}
		for _, c := range children[it.p.pid] {
			queue = append(queue, item{p: c, underGo: it.underGo || it.p.comm == "go"})
		}
	}
	return goRuns && !codeUnderGo
}

// isCacheProgIn reports whether the process pid, as procDir shows it, is
// core's GOCACHEPROG ("core sandbox gocache ...").
func isCacheProgIn(procDir string) func(pid int) bool {
	return func(pid int) bool {
		b, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "cmdline"))
		if err != nil || len(b) > 64<<10 {
			return false
		}
		args := strings.Split(string(b), "\x00")
		return len(args) >= 3 && args[1] == "sandbox" && args[2] == "gocache"
	}
}

// overTime decides whether a command that has run for elapsed, of which
// it compiled for built, is over its time: over its timeout once the time
// it did not compile reaches it, or over its ceiling, compiling or not.
// A ceiling no greater than the timeout is none: the timeout counts
// everything, as for a command given no ceiling.
func overTime(elapsed, built, timeout, ceiling time.Duration) (over, atCeiling bool) {
	if timeout <= 0 {
		return false, false
	}
	if ceiling <= timeout {
		return elapsed >= timeout, false
	}
	if elapsed >= ceiling {
		return true, true
	}
	return elapsed-built >= timeout, false
}

// Timing is how a command's time was spent, as its clock saw it.
type Timing struct {
	// Built is how long a compiler ran among its processes; that time did
	// not count against the timeout.
	Built time.Duration
	// Over is set when the clock stopped the command; AtCeiling when the
	// build ceiling, not the timeout, did.
	Over, AtCeiling bool
}

// Clock times one command: it calls kill once when the command is over
// its time (overTime), sampling the command's processes while a ceiling
// gives it room to compile. stop ends it and says how the time went.
type Clock struct {
	mu        sync.Mutex
	t         Timing
	quit      chan struct{}
	done      chan struct{}
	stopTimer func() bool
}

// StartClock starts the clock of the command whose processes descend from
// root, as procDir shows them.
func StartClock(root int, procDir string, timeout, ceiling time.Duration, kill func()) *Clock {
	c := &Clock{quit: make(chan struct{}), done: make(chan struct{})}
	if timeout <= 0 {
		close(c.done)
		return c
	}
	fire := func(atCeiling bool) {
		c.mu.Lock()
		c.t.Over, c.t.AtCeiling = true, atCeiling
		c.mu.Unlock()
		kill()
	}
	if ceiling <= timeout {
		close(c.done)
		t := time.AfterFunc(timeout, func() { fire(false) })
		c.stopTimer = t.Stop
		return c
	}
	every := min(max(timeout/10, 50*time.Millisecond), time.Second)
	go func() {
		defer close(c.done)
		start := time.Now()
		last := start
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-c.quit:
				return
			case <-tick.C:
			}
			now := time.Now()
			c.mu.Lock()
			if compiling(readProcs(procDir), root, isCacheProgIn(procDir)) {
				c.t.Built += now.Sub(last)
			}
			built := c.t.Built
			c.mu.Unlock()
			last = now
			if over, atCeiling := overTime(now.Sub(start), built, timeout, ceiling); over {
				fire(atCeiling)
				return
			}
		}
	}()
	return c
}

// Stop stops the clock and says how the command's time went.
func (c *Clock) Stop() Timing {
	if c.stopTimer != nil {
		c.stopTimer()
	}
	select {
	case <-c.done:
	default:
		close(c.quit)
		<-c.done
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// KilledLine is the line core adds to the output of a command it stopped
// at its time.
func KilledLine(timeout, ceiling time.Duration, t Timing) string {
	if t.AtCeiling {
		return fmt.Sprintf("\n[killed: the command ran past its build ceiling of %s, compiling or not (its %s timeout did not count %s it spent compiling)]\n", ceiling, timeout, t.Built.Round(time.Second))
	}
	if t.Built > 0 {
		return fmt.Sprintf("\n[killed: the command ran past its %s timeout, not counting %s it spent compiling]\n", timeout, t.Built.Round(time.Second))
	}
	return fmt.Sprintf("\n[killed: the command ran past its %s timeout]\n", timeout)
}
