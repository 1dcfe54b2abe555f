package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coreagent/core/sandbox/limit"
	"golang.org/x/sys/unix"
)

// niceSession lowers the priority of the session the sandboxed process pid
// makes past the gate (bwrap --new-session) to limit.BackgroundNice. Where the
// kernel groups processes by session to share the CPUs (autogroup), a
// process's own niceness weighs only against its session's other
// processes: the session's is what weighs against the rest. It waits,
// bounded, for the new session to appear, and gives up quietly: a lost
// priority costs time, not safety.
func niceSession(ctx context.Context, pid int) {
	own, err := os.ReadFile("/proc/self/autogroup")
	if err != nil {
		return // no autogroup: the niceness set at the gate is what counts
	}
	path := fmt.Sprintf("/proc/%d/autogroup", pid)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		cur, err := os.ReadFile(path)
		if err != nil {
			return // gone
		}
		if group(cur) != group(own) {
			_ = os.WriteFile(path, []byte(strconv.Itoa(limit.BackgroundNice)), 0)
			return
		}
		t := time.NewTimer(5 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// group is the name of an autogroup in /proc/<pid>/autogroup's line
// ("/autogroup-12 nice 0").
func group(line []byte) string {
	name, _, _ := strings.Cut(string(line), " ")
	return name
}

// The gate: bwrap --block-fd holds the sandbox's first process after its
// namespaces and mounts are made and before it forks or runs anything, and
// --info-fd says which host pid that process has. While it waits, core puts
// it (and bwrap's own monitor) in its cgroups and sets its rlimits; then it
// opens the gate. Nothing the command forks can escape the limits.
const (
	SeccompFD = 3
	blockFD   = 4
	infoFD    = 5
)

// Launch is what runs around one confined command: the seccomp program, the
// gate, the cgroups, the rlimits and the workspace watch; afterwards it
// names the limit the command hit.
type Launch struct {
	limits limit.Limits
	files  []*os.File // [seccomp, gate read end, info write end]
	gateW  *os.File
	infoR  *os.File
	cg     *limit.Cgroup
	made   chan *limit.Cgroup // the cgroups, made while bwrap sets up the sandbox
	watch  bool               // watch the workspace's growth
	// yield, set for a background command, lowers its CPU priority to
	// the least (nice limit.BackgroundNice) at the gate, before it runs
	// anything: everything it forks inherits it; where a cpu cgroup can
	// be made, the command runs in it, yielding to the foreground
	// commands yield counts.
	yield   *limit.Yielder
	unyield func() // forgets the cpu cgroup, once it is removed

	grew     atomic.Bool
	based    bool // the baseline was measured; read after the watch ended
	baseline int64
}

// New prepares a launch; program is the seccomp filter. The cgroups
// are made under parents alongside, while bwrap builds the sandbox, so that
// the command waits at the gate only for being moved into them. A
// background command's yield to the foreground commands of y (nil for
// none).
func New(program []byte, l limit.Limits, parents limit.CgroupParents, watch bool, y *limit.Yielder) (*Launch, error) {
	sec, err := limit.SeccompFile(program)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		sec.Close()
		return nil, err
	}
	ir, iw, err := os.Pipe()
	if err != nil {
		sec.Close()
		r.Close()
		w.Close()
		return nil, err
	}
	made := make(chan *limit.Cgroup, 1)
	go func() { made <- limit.NewCgroup(l, parents, y != nil) }()
	return &Launch{limits: l, files: []*os.File{sec, r, iw}, gateW: w, infoR: ir, made: made, watch: watch,
		yield: y, unyield: func() {}}, nil
}

// gate puts bwrap's gate options in front of its arguments.
func (l *Launch) Gate(path string, args []string) (string, []string) {
	return path, append([]string{"--block-fd", strconv.Itoa(blockFD), "--info-fd", strconv.Itoa(infoFD)}, args...)
}

func (l *Launch) Close() {
	for _, f := range l.files {
		f.Close()
	}
	l.gateW.Close()
	l.infoR.Close()
	(<-l.made).Remove()
	l.unyield()
}

// Cgroup is the command's cgroup once Release put it there, else nil.
func (l *Launch) Cgroup() *limit.Cgroup { return l.cg }

// held returns the host pids to limit: bwrap's and its sandboxed child's,
// as bwrap's --info-fd tells it; only bwrap's when bwrap died first.
func (l *Launch) held(pid int) []int {
	defer l.infoR.Close()
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(l.infoR).Decode(&info); err != nil || info.ChildPid <= 0 {
		return []int{pid}
	}
	return []int{pid, info.ChildPid}
}

// release puts the gated process in its cgroups, sets its rlimits, opens the
// gate and starts the workspace watch; stop ends the watch.
func (l *Launch) Release(ctx context.Context, pid int, ws string) (stop func(), err error) {
	for _, f := range l.files {
		f.Close()
	}
	defer l.gateW.Close()
	// bwrap goes into the cgroups at once, while it builds the sandbox: a
	// move costs the kernel a grace period (most of the cost of the cgroups
	// on cgroup v1), and a child bwrap forks after it is born inside. The
	// child moves at the gate only when bwrap forked it first.
	l.cg = <-l.made
	if l.yield != nil {
		// Idle from the start when a foreground command runs.
		l.unyield = l.yield.Add(l.cg)
	}
	if err := l.cg.Add(pid); err != nil && !errors.Is(err, unix.ESRCH) {
		l.cg.Remove()
		return nil, err
	}
	pids := l.held(pid)
	for _, p := range pids[1:] {
		if l.cg.Holds(p) {
			continue
		}
		if err := l.cg.Add(p); err != nil && !errors.Is(err, unix.ESRCH) {
			l.cg.Remove()
			return nil, err
		}
	}
	cpu := uint64(l.limits.CPUTime / time.Second)
	rl := []struct {
		res  int
		soft uint64
		hard uint64
	}{
		{unix.RLIMIT_CPU, cpu, cpu + 5},
		{unix.RLIMIT_FSIZE, uint64(l.limits.FileSize), uint64(l.limits.FileSize)},
	}
	if l.cg.Pids == "" && os.Geteuid() != 0 {
		// No pids cgroup: the per-user process limit is the next best thing
		// (root is exempt from it, which is why the cgroup comes first).
		n := uint64(l.limits.Processes)
		rl = append(rl, struct {
			res  int
			soft uint64
			hard uint64
		}{unix.RLIMIT_NPROC, n, n})
	}
	if l.yield != nil {
		for _, p := range pids {
			if err := unix.Setpriority(unix.PRIO_PROCESS, p, limit.BackgroundNice); err != nil && !errors.Is(err, unix.ESRCH) {
				l.cg.Remove()
				return nil, err
			}
		}
	}
	for _, r := range rl {
		lim := unix.Rlimit{Cur: r.soft, Max: r.hard}
		for _, p := range pids {
			if err := unix.Prlimit(p, r.res, &lim, nil); err != nil && !errors.Is(err, unix.ESRCH) {
				l.cg.Remove()
				return nil, err
			}
		}
	}
	_, _ = l.gateW.Write([]byte("g")) // fails only when bwrap is already gone
	if l.yield != nil {
		go niceSession(ctx, pids[len(pids)-1])
	}
	if !l.watch || ws == "" {
		return func() {}, nil
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		l.WatchWorkspace(ctx, done, func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }, ws)
	}()
	return func() { close(done); wg.Wait() }, nil
}

// watchGrace is how long a command runs before the watch first walks its
// workspace: most commands are over by then, and walk nothing.
const watchGrace = 100 * time.Millisecond

// WatchWorkspace measures the workspace now and then and stops the command
// once it grew past its limit. The pause between two walks is ten times
// what a walk took, and at least a quarter of a second, so the watch costs
// little however big the workspace.
//
// The first walk, the baseline, runs once the command has run for
// watchGrace, so that short commands walk nothing and a big workspace
// delays none; what the command writes before and during it counts as
// already there.
func (l *Launch) WatchWorkspace(ctx context.Context, done <-chan struct{}, kill func(), ws string) {
	grace := time.NewTimer(watchGrace)
	select {
	case <-done:
		grace.Stop()
		return
	case <-ctx.Done():
		grace.Stop()
		return
	case <-grace.C:
	}
	l.baseline = TreeSize(ws)
	l.based = true
	pause := 250 * time.Millisecond
	for {
		t := time.NewTimer(pause)
		select {
		case <-done:
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		start := time.Now()
		if TreeSize(ws)-l.baseline > l.limits.WorkspaceGrowth {
			l.grew.Store(true)
			kill()
			return
		}
		pause = max(250*time.Millisecond, 10*time.Since(start))
	}
}

// Finish names the limit the command hit, if any ("" for none), from its
// exit code and output, and removes the cgroups. The caller appends the
// note that says how to raise it.
func (l *Launch) Finish(ws string, exitCode int, output string) string {
	defer l.unyield()
	if l.cg == nil {
		return ""
	}
	defer l.cg.Remove()
	name := l.cg.Hit()
	switch {
	case name != "":
	case l.grew.Load():
		name = limit.LimitWorkspace
	case l.based && TreeSize(ws)-l.baseline > l.limits.WorkspaceGrowth:
		name = limit.LimitWorkspace
	default:
		name = LimitFromOutput(exitCode, output, ws)
	}
	return name
}

// LimitFromOutput recognises the limits the kernel enforces by a signal or an
// error: CPU time (SIGXCPU), file size (SIGXFSZ, or EFBIG where the signal is
// ignored, as Go programs do), the size of /tmp (ENOSPC while the
// workspace's file system has room), and the per-user process limit.
func LimitFromOutput(exitCode int, output, ws string) string {
	out := strings.ToLower(output)
	switch {
	case exitCode == 128+int(syscall.SIGXCPU) || strings.Contains(out, "cpu time limit exceeded"):
		return limit.LimitCPUTime
	case exitCode == 128+int(syscall.SIGXFSZ) || strings.Contains(out, "file size limit exceeded") || strings.Contains(out, "file too large"):
		return limit.LimitFileSize
	case strings.Contains(out, "no space left on device") && hasRoom(ws):
		return limit.LimitTmp
	case strings.Contains(out, "resource temporarily unavailable") && strings.Contains(out, "fork"):
		return limit.LimitProcesses
	}
	return ""
}

// hasRoom reports whether the file system of dir has more than 64 MiB free.
func hasRoom(dir string) bool {
	var st unix.Statfs_t
	if dir == "" || unix.Statfs(dir, &st) != nil {
		return true
	}
	return int64(st.Bavail)*int64(st.Bsize) > 64<<20
}

// TreeSize is the disk space the files under dir take, .git aside. It
// follows no link and tolerates files vanishing under it.
func TreeSize(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && filepath.Dir(p) == dir {
			return fs.SkipDir
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				total += st.Blocks * 512
			} else {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}
