package boxagent

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/coreagent/core/sandbox/limit"
	"golang.org/x/sys/unix"
)

// A command's runner: every command the box's agent runs (boxagent.go),
// foreground or background, runs under a runner of its own, the agent's
// executable started again (`<core> sandbox agent --reap -- MODE PATH
// ARGV...`), which is the command's child subreaper
// (PR_SET_CHILD_SUBREAPER). A process the command starts cannot leave the
// runner's tree: one that calls setsid, double-forks or changes its process
// group is reparented to the runner when its parent ends, not to the box's
// first process. When the command's first process ends (or the agent asks:
// a timeout, a stop, the host gone), the runner kills every process left
// under it, again after each one it reaps, until it has no child left, and
// only then exits with the command's status.
//
// Why not the other ways to track a command's processes: the process group
// is what such a process leaves; a PID namespace per command needs
// CAP_SYS_ADMIN, which the box's processes have not; a cgroup per command
// needs a cgroupfs the agent may write, which the bwrap box has not (and
// this machine and CI have cgroup v1). A subreaper needs no privilege and
// is the same in the bwrap box and in the Docker backend's container, which
// run the same agent.
//
// The runner is the command's parent and shares its user, so the command
// could kill it: its orphans then reparent to the agent, which is a
// subreaper too and ends every child of its own that is not a runner
// (boxAgent.sweep).

// reapFlag is the agent's argument that makes it a command's runner.
const reapFlag = "--reap"

// The runner's fds: 0, 1 and 2 are the command's; runnerStatusFD is where
// it says the command's pid ("PID\n") or why it did not start ("error:
// ...\n"); with the pipe mode, fds 4 and 5 become the command's 3 and 4.
const (
	runnerStatusFD = 3
	runnerPipeIn   = 4
	runnerPipeOut  = 5
)

// runnerArgv is how the agent starts a runner for the command path, argv;
// nice puts the command at limit.BackgroundNice (the runner's mode gets a
// "nice-" prefix: the runner lowers itself before it starts the command,
// so that the command and all it starts inherit it).
func runnerArgv(path string, argv []string, pipe, nice bool) []string {
	mode := "nopipe"
	if pipe {
		mode = "pipe"
	}
	if nice {
		mode = "nice-" + mode
	}
	return append([]string{"core-box-runner", "sandbox", "agent", reapFlag, "--", mode, path}, argv...)
}

// RunCommandReaper is `core sandbox agent --reap -- MODE PATH ARGV...`, a
// command's runner in a box (see above); args are what follows the "--".
// It returns the command's exit status (128 and the signal's number when a
// signal ended it), which is the runner's own.
func RunCommandReaper(args []string) int {
	status := os.NewFile(runnerStatusFD, "status")
	var mode string
	nice := false
	if len(args) > 0 {
		mode, nice = strings.CutPrefix(args[0], "nice-")
	}
	if len(args) < 3 || (mode != "pipe" && mode != "nopipe") {
		fmt.Fprintln(os.Stderr, "core sandbox agent --reap: want -- [nice-]pipe|[nice-]nopipe PATH ARGV...")
		return 125
	}
	args[0] = mode
	fail := func(err error) int {
		fmt.Fprintf(status, "error: %v\n", err)
		status.Close()
		return 126
	}
	if nice {
		// Before the fork, on the thread that forks (Linux keeps a
		// niceness per thread): the command and all it starts inherit it.
		runtime.LockOSThread()
		if err := unix.Setpriority(unix.PRIO_PROCESS, 0, limit.BackgroundNice); err != nil {
			return fail(fmt.Errorf("lower the command's priority: %w", err))
		}
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("become the command's subreaper: %w", err))
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGUSR1)
	pid, err := forkCommand(args[0] == "pipe", args[1], args[2:])
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(status, "%d\n", pid)
	status.Close()
	if args[0] == "pipe" {
		syscall.Close(runnerPipeIn)
		syscall.Close(runnerPipeOut)
	}
	self := os.Getpid()
	go passOn(sigs, self)
	return reapAll(self, pid)
}

// forkCommand starts the command path, argv in a process group of its own,
// with the runner's fds 0, 1 and 2, and with pipe the runner's fds 4 and 5
// as its 3 and 4; the status fd (and the pipe's) are closed on exec.
func forkCommand(pipe bool, path string, argv []string) (int, error) {
	files := []uintptr{0, 1, 2}
	syscall.CloseOnExec(runnerStatusFD)
	if pipe {
		syscall.CloseOnExec(runnerPipeIn)
		syscall.CloseOnExec(runnerPipeOut)
		files = append(files, runnerPipeIn, runnerPipeOut)
	}
	return syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
}

// passOn passes the signals the agent sends the runner on to every process
// under self: SIGTERM as it is, SIGUSR1 as SIGKILL.
func passOn(sigs <-chan os.Signal, self int) {
	for s := range sigs {
		if s == syscall.SIGUSR1 {
			signalTree(self, syscall.SIGKILL)
		} else {
			signalTree(self, syscall.SIGTERM)
		}
	}
}

// reapAll reaps the runner's children until none is left; once the command
// (pid) ended, it kills what is left under self after each round. It returns
// the command's status (statusCode), 125 if it was never reaped.
func reapAll(self, pid int) int {
	code, ended := 125, false
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // ECHILD: nothing is left under the runner
		}
		if wpid == pid {
			code, ended = statusCode(ws), true
		}
		if !ended {
			continue // an orphan of the running command ended: reaped
		}
		// The command ended: whatever it left, each round's orphans too.
		// Reap what already ended before looking again, so that a round
		// costs one walk of /proc however many it killed.
		reapEnded()
		signalTree(self, syscall.SIGKILL)
	}
	return code
}

// reapEnded reaps, without waiting, every child of the runner that already
// ended.
func reapEnded() {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || wpid <= 0 {
			break
		}
	}
}

// statusCode is a wait status as the agent reports it: the exit status, or
// 128 and the signal's number.
func statusCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// signalTree sends sig to every process under root, as /proc shows them.
func signalTree(root int, sig syscall.Signal) {
	for _, pid := range TreeUnder(root, ProcParents()) {
		_ = syscall.Kill(pid, sig)
	}
}

// ProcParents maps each pid /proc shows to its parent's.
func ProcParents() map[int]int {
	procs := readProcs("/proc")
	parents := make(map[int]int, len(procs))
	for _, p := range procs {
		parents[p.pid] = p.ppid
	}
	return parents
}

// parseProcStat reads the pid and the parent's pid from a /proc/PID/stat
// line: "PID (COMM) STATE PPID ...", where COMM may hold spaces and
// parentheses (the last ')' ends it).
func parseProcStat(b []byte) (pid, ppid int, ok bool) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[end+1:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(string(f[1]))
	if err != nil || ppid < 0 {
		return 0, 0, false
	}
	return pid, ppid, true
}

// TreeUnder lists the pids under root in parents (pid → parent's pid),
// children before their own children; root itself is not listed.
func TreeUnder(root int, parents map[int]int) []int {
	children := map[int][]int{}
	for pid, ppid := range parents {
		if pid != ppid {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	seen := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}
