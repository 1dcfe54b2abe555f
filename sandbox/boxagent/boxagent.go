package boxagent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coreagent/core/sandbox/limit"
	"golang.org/x/sys/unix"
)

// Ready is the line the agent writes on its stdout once it listens.
const Ready = "core-box-ready"

// StopGrace is how long a stopped process has between SIGTERM and SIGKILL.
const StopGrace = time.Second

// AgentIfAsked runs the box's agent and exits when args (os.Args) are how a
// box starts it, `<executable> sandbox agent --socket PATH [--lifeline]`,
// runs a command's runner and exits when they are how the agent starts one
// (`<executable> sandbox agent --reap -- ...`, boxreap.go), and returns
// otherwise. The TestMain of a package whose tests run boxes
// with the test binary as the agent (Config.Agent) calls it first.
func AgentIfAsked(args []string) {
	if len(args) > 4 && args[1] == "sandbox" && args[2] == "agent" && args[3] == reapFlag && args[4] == "--" {
		os.Exit(RunCommandReaper(args[5:]))
	}
	if len(args) <= 4 || args[1] != "sandbox" || args[2] != "agent" || args[3] != "--socket" {
		return
	}
	var err error
	if len(args) > 5 && args[5] == "--lifeline" {
		err = RunContainerAgent(args, args[4], os.Stdin, os.Stdout)
	} else {
		err = RunBoxAgent(args[4], os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// RunBoxAgent is `core sandbox agent`, the box's agent (sandbox/box.go): it listens
// on socket, says so on ready, and runs each command the host asks for on
// a connection of its own, under a runner of its own (boxreap.go),
// streaming its output back. Every process the command started is killed
// when it exits, when its timeout runs out, when the host asks, and when
// the host's connection closes, whatever group or session it moved to. It
// returns only when it cannot listen.
func RunBoxAgent(socket string, ready io.Writer) error {
	return runBoxAgent(socket, ready, 0, false)
}

// RunContainerAgent is `core sandbox agent --lifeline`, the agent of the
// Docker backend's box (sandbox/docker/box.go), its container's first process
// (args are its os.Args). As pid 1 it starts itself again as its child and
// reaps the box's orphans until that child ends, which ends the container.
// The child is RunBoxAgent with a socket the host's user may connect to,
// which exits when stdin ends: core holds the container's stdin open
// through its attach connection, which closes when core ends or dies.
func RunContainerAgent(args []string, socket string, stdin io.Reader, ready io.Writer) error {
	if os.Getpid() == 1 {
		os.Exit(reapUntil(args))
	}
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		os.Exit(0)
	}()
	// The agent runs as the sandbox user, core perhaps as another: the
	// socket's directory is what keeps everyone else out.
	return runBoxAgent(socket, ready, 0o666, true)
}

// reapUntil runs args as a child and reaps every process that ends in the
// container until the child does; it returns the child's exit status.
func reapUntil(args []string) int {
	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "box agent:", err)
		return 1
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			return 1
		case pid == c.Process.Pid && ws.Exited():
			return ws.ExitStatus()
		case pid == c.Process.Pid:
			return 1
		}
	}
}

// runBoxAgent is RunBoxAgent, its socket's mode set to mode when not 0;
// with ownCgroup, the cgroup the agent sees is its box's (a container's
// cgroup namespace), whose limits it names in a command's exit.
func runBoxAgent(socket string, ready io.Writer, mode os.FileMode, ownCgroup bool) error {
	_ = os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		return fmt.Errorf("box agent: %w", err)
	}
	defer l.Close()
	if mode != 0 {
		if err := os.Chmod(socket, mode); err != nil {
			return fmt.Errorf("box agent: %w", err)
		}
	}
	// What a killed runner leaves is reparented to the agent, which ends
	// it (boxAgent.sweep).
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("box agent: become a subreaper: %w", err)
	}
	ag := &boxAgent{runners: map[int]bool{}}
	if _, err := fmt.Fprintln(ready, Ready); err != nil {
		return fmt.Errorf("box agent: %w", err)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("box agent: %w", err)
		}
		go serveBoxConn(c, ag, ownCgroup)
	}
}

// boxAgent is what the agent's connections share: its runners. The
// agent's only children are runners; any other child is a process whose
// runner was killed under it (by the command it ran), reparented to the
// agent, which ends it.
type boxAgent struct {
	mu      sync.Mutex
	runners map[int]bool // pids of the runners started and not yet waited for
}

// start starts a runner and notes it, so that no sweep takes it for a
// stray.
func (ag *boxAgent) start(c *exec.Cmd) error {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	if err := c.Start(); err != nil {
		return err
	}
	ag.runners[c.Process.Pid] = true
	return nil
}

// done forgets a runner that was waited for and ends the strays.
func (ag *boxAgent) done(pid int) {
	ag.mu.Lock()
	delete(ag.runners, pid)
	ag.mu.Unlock()
	ag.sweep()
}

// sweep kills and reaps every child of the agent that is not a runner,
// again for the orphans each one leaves, until none is left.
func (ag *boxAgent) sweep() {
	self := os.Getpid()
	for {
		ag.mu.Lock()
		var strays []int
		for pid, ppid := range ProcParents() {
			if ppid == self && !ag.runners[pid] {
				strays = append(strays, pid)
			}
		}
		for _, pid := range strays {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		ag.mu.Unlock()
		if len(strays) == 0 {
			return
		}
		for _, pid := range strays {
			var ws syscall.WaitStatus
			for {
				if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
					break
				}
			}
		}
	}
}

// agentConn is one command's connection, as the agent sees it.
type agentConn struct {
	c         net.Conn
	ag        *boxAgent
	mu        sync.Mutex // one frame at a time
	ownCgroup bool       // the cgroup at /sys/fs/cgroup is the box's
}

func (a *agentConn) send(kind byte, payload []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return WriteFrame(a.c, kind, payload)
}

func (a *agentConn) sendJSON(kind byte, v any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return WriteJSONFrame(a.c, kind, v)
}

// pump sends what r yields as frames of kind, then end (0 for none).
func (a *agentConn) pump(r io.Reader, kind, end byte) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 && a.send(kind, buf[:n]) != nil {
			_, _ = io.Copy(io.Discard, r) // the host left: drain, so the process never blocks
			return
		}
		if err != nil {
			break
		}
	}
	if end != 0 {
		_ = a.send(end, nil)
	}
}

func serveBoxConn(c net.Conn, ag *boxAgent, ownCgroup bool) {
	defer c.Close()
	a := &agentConn{c: c, ag: ag, ownCgroup: ownCgroup}
	br := bufio.NewReaderSize(c, 64<<10)
	req, err := ReadRequest(br)
	if err != nil {
		_ = a.sendJSON(FrameExit, Exit{Code: -1, Err: err.Error()})
		return
	}
	exit := a.run(req, br)
	_ = a.sendJSON(FrameExit, exit)
}

// run runs one request under a runner of its own and says how it ended.
func (a *agentConn) run(req Request, br *bufio.Reader) Exit {
	path, err := lookPathIn(req.Argv[0], req.Env)
	if err != nil {
		_ = a.send(FrameOutput, []byte(fmt.Sprintf("%s: command not found\n", req.Argv[0])))
		return Exit{Code: 127}
	}
	rn, statusR, exit, ok := a.startRunner(path, req)
	if !ok {
		return exit
	}
	pid, ok := a.commandPID(rn, statusR, req.Argv[0])
	if !ok {
		return Exit{Code: 126}
	}
	return a.supervise(rn, pid, req, br)
}

// runner is a command's runner as the agent holds it once it started:
// the ends of its pipes that are the agent's.
type runner struct {
	cmd   *exec.Cmd
	pid   int      // the runner's
	outR  *os.File // the command's stdout and stderr
	inW   *os.File // with req.Pipe, the command's fd 3; else nil
	pipeR *os.File // with req.Pipe, the command's fd 4; else nil
}

// startRunner starts the runner of the command path (req.Argv) and closes
// the ends of its pipes the runner alone holds; statusR is where the runner
// says the command's pid. When it cannot start one, exit says why.
func (a *agentConn) startRunner(path string, req Request) (rn *runner, statusR *os.File, exit Exit, ok bool) {
	var files []*os.File // closed once the runner has them
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	outR, outW, err := pipe()
	if err != nil {
		return nil, nil, Exit{Code: -1, Err: err.Error()}, false
	}
	statusR, statusW, err := pipe()
	if err != nil {
		closeAll()
		return nil, nil, Exit{Code: -1, Err: err.Error()}, false
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = runnerArgv(path, req.Argv, req.Pipe, req.Nice)
	cmd.Env = req.Env
	cmd.Dir = req.Dir
	cmd.Stdout, cmd.Stderr = outW, outW
	cmd.ExtraFiles = []*os.File{statusW} // runnerStatusFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var inW, pipeR *os.File
	if req.Pipe {
		inR, w, err := pipe()
		if err != nil {
			closeAll()
			return nil, nil, Exit{Code: -1, Err: err.Error()}, false
		}
		r, outPipe, err := pipe()
		if err != nil {
			closeAll()
			return nil, nil, Exit{Code: -1, Err: err.Error()}, false
		}
		inW, pipeR = w, r
		cmd.ExtraFiles = append(cmd.ExtraFiles, inR, outPipe) // runnerPipeIn, runnerPipeOut
	}
	if err := a.ag.start(cmd); err != nil {
		closeAll()
		_ = a.send(FrameOutput, []byte(fmt.Sprintf("%s: %v\n", req.Argv[0], err)))
		return nil, nil, Exit{Code: 126}, false
	}
	// The parent's ends the runner alone holds now.
	for _, f := range append([]*os.File{outW, statusW}, cmd.ExtraFiles[1:]...) {
		f.Close()
	}
	return &runner{cmd: cmd, pid: cmd.Process.Pid, outR: outR, inW: inW, pipeR: pipeR}, statusR, Exit{}, true
}

// commandPID reads and closes statusR, where the runner says the command's
// pid. When the command did not start, it waits for the runner, closes the
// agent's ends of its pipes, sends why as name's output, and is not ok.
func (a *agentConn) commandPID(rn *runner, statusR *os.File, name string) (int, bool) {
	said, _ := io.ReadAll(io.LimitReader(statusR, MaxExitErr))
	statusR.Close()
	pid, err := strconv.Atoi(strings.TrimSpace(string(said)))
	if err == nil && pid > 0 {
		return pid, true
	}
	// The command did not start: the runner said why, or died.
	_ = rn.cmd.Wait()
	a.ag.done(rn.pid)
	rn.outR.Close()
	if rn.inW != nil {
		rn.inW.Close()
		rn.pipeR.Close()
	}
	why := strings.TrimSpace(strings.TrimPrefix(string(said), "error: "))
	if why == "" {
		why = "its runner ended before it started"
	}
	_ = a.send(FrameOutput, []byte(fmt.Sprintf("%s: %s\n", name, why)))
	return 0, false
}

// supervise streams the output of the command pid under rn until rn ends,
// kills it at its timeout or when the host asks or leaves, and says how it
// ended.
func (a *agentConn) supervise(rn *runner, pid int, req Request, br *bufio.Reader) Exit {
	var before limit.CgroupEvents
	if a.ownCgroup {
		before = containerEvents()
	}
	// The command, not the agent or its runner, is what the kernel's OOM
	// killer picks when the box runs out of memory.
	_ = os.WriteFile(filepath.Join("/proc", strconv.Itoa(pid), "oom_score_adj"), []byte("1000"), 0)
	_ = a.sendJSON(FrameStarted, Started{PID: pid})

	var pumps sync.WaitGroup
	pumps.Add(1)
	go func() { defer pumps.Done(); a.pump(rn.outR, FrameOutput, 0) }()
	if rn.pipeR != nil {
		pumps.Add(1)
		go func() { defer pumps.Done(); a.pump(rn.pipeR, FramePipe, FramePipeEnd) }()
	}

	k := &killer{pid: pid, runner: rn.pid}
	clk := StartClock(rn.pid, "/proc", time.Duration(req.TimeoutMS)*time.Millisecond, time.Duration(req.CeilingMS)*time.Millisecond, k.timeout)
	defer clk.Stop()
	ended := make(chan struct{})
	go a.serveHost(br, rn.inW, k, ended)
	// The runner ends once nothing is left under it.
	_ = rn.cmd.Wait()
	timing := clk.Stop()
	k.markExited()
	close(ended)
	a.ag.done(rn.pid)
	if rn.inW != nil {
		rn.inW.Close()
	}
	rn.drain(&pumps)
	exit := Exit{Code: exitCode(rn.cmd.ProcessState)}
	exit.TimedOut = k.hasTimedOut()
	exit.AtCeiling, exit.BuiltMS = timing.AtCeiling, timing.Built.Milliseconds()
	if a.ownCgroup {
		exit.Limit = containerEvents().Since(before)
	}
	return exit
}

// killer kills a command. A kill goes to the command's group and to its
// runner, which passes it on to every process under it: SIGTERM as it is,
// SIGKILL as SIGUSR1. A runner the command stopped is continued first; one
// that still runs limit.WaitDelay after a SIGKILL is killed, and the agent
// ends what it leaves (boxAgent.sweep).
type killer struct {
	pid, runner int // the command's and its runner's

	mu       sync.Mutex
	timedOut bool // its timeout ran out
	exited   bool // its runner was waited for
}

func (k *killer) kill(sig syscall.Signal) {
	_ = syscall.Kill(-k.pid, sig)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.exited {
		return // its pid may be another process's by now
	}
	_ = syscall.Kill(k.runner, syscall.SIGCONT)
	if sig == syscall.SIGKILL {
		_ = syscall.Kill(k.runner, syscall.SIGUSR1)
		time.AfterFunc(limit.WaitDelay, func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			if !k.exited {
				_ = syscall.Kill(k.runner, syscall.SIGKILL)
			}
		})
		return
	}
	_ = syscall.Kill(k.runner, sig)
}

// timeout notes that the command's timeout ran out and kills it.
func (k *killer) timeout() {
	k.mu.Lock()
	k.timedOut = true
	k.mu.Unlock()
	k.kill(syscall.SIGKILL)
}

// markExited notes that the runner was waited for: its pid is no longer
// its own to signal.
func (k *killer) markExited() {
	k.mu.Lock()
	k.exited = true
	k.mu.Unlock()
}

func (k *killer) hasTimedOut() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.timedOut
}

// serveHost reads the host's side of the connection: input for the pipe
// (inW, nil without one), a stop, or the end of the connection, which kills
// the command. ended closes when the runner was waited for.
func (a *agentConn) serveHost(br *bufio.Reader, inW *os.File, k *killer, ended <-chan struct{}) {
	for {
		kind, payload, err := readFrame(br, []byte{FrameInput, FrameInputEnd, FrameStop})
		if err != nil {
			k.kill(syscall.SIGKILL)
			return
		}
		switch kind {
		case FrameInput:
			if inW != nil {
				_, _ = inW.Write(payload)
			}
		case FrameInputEnd:
			if inW != nil {
				inW.Close()
			}
		case FrameStop:
			k.kill(syscall.SIGTERM)
			go func() {
				select {
				case <-ended:
				case <-time.After(StopGrace):
				}
				k.kill(syscall.SIGKILL)
			}()
		}
	}
}

// drain waits for the pumps of the runner that ended and closes its
// output's ends. Everything that held the output is gone; a bounded wait
// all the same.
func (rn *runner) drain(pumps *sync.WaitGroup) {
	drained := make(chan struct{})
	go func() { pumps.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(limit.WaitDelay):
		rn.outR.Close()
		if rn.pipeR != nil {
			rn.pipeR.Close()
		}
		<-drained
	}
	rn.outR.Close()
	if rn.pipeR != nil {
		rn.pipeR.Close()
	}
}

// exitCode is a waited-for runner's status as Exit.Code says it: its exit
// status, 128 and the signal's number, or -1 for none in 0..255.
func exitCode(ps *os.ProcessState) int {
	code := ps.ExitCode()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if code < 0 || code > 255 {
		code = -1
	}
	return code
}

// containerEvents reads the counts of a box container's own cgroup (v2 or
// v1), as its agent sees it: a cgroup namespace of its own.
func containerEvents() limit.CgroupEvents {
	return limit.CgroupEvents{
		OOM:  max(limit.Counter("/sys/fs/cgroup/memory.events", "oom_kill"), limit.Counter("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill")),
		Pids: max(limit.Counter("/sys/fs/cgroup/pids.events", "max"), limit.Counter("/sys/fs/cgroup/pids/pids.events", "max")),
	}
}

// lookPathIn finds name on the PATH of env.
func lookPathIn(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if limit.IsExecutable(name) {
			return name, nil
		}
		return "", fmt.Errorf("%s: not an executable file", name)
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, name); limit.IsExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}
