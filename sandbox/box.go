package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A box is one long-lived bwrap sandbox per workspace, with the profile,
// limits and filter of a confined command, started on the workspace's
// first confined command (or Sandbox.Box). Inside runs core's agent
// (boxagent.go), which runs each command the host sends over its socket
// (boxproto.go) in a process group of its own. A command costs a
// connection instead of a new sandbox, /tmp and loopback live as long as
// the box, and a background process (Start) stays up for later commands
// to reach on 127.0.0.1 or localhost. The box's cgroups hold everything in
// it; bwrap's --die-with-parent ends it with core.
const (
	// boxDirPath is where the box sees the host directory of the agent's
	// socket.
	boxDirPath = "/run/core/box"
	// boxSocket is the agent's socket's name in that directory.
	boxSocket = "agent.sock"
	// boxStartTimeout bounds a box's start, until its agent listens: a
	// loaded machine can be slow, and a box that did not start is not
	// tried again.
	boxStartTimeout = 2 * time.Minute
	// boxGrace is how long past a command's timeout the host waits for the
	// agent to say it killed it before giving up on the agent.
	boxGrace = 10 * time.Second
	// boxHosts is the box's own /etc/hosts.
	boxHosts = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
)

// ErrNoBox says that there is no box here: the backend is not bwrap, or
// core's executable is not known. Commands still run, each confined alone.
var ErrNoBox = errors.New("no box here")

// StartOptions says how to start a background process in a box.
type StartOptions struct {
	// Env holds NAME=value pairs added to the command's environment.
	Env []string
	// Dir is the working directory, relative to the workspace; empty is
	// the workspace.
	Dir string
	// OutputLimit is how many bytes of output to keep (head and tail);
	// zero means DefaultOutputLimit.
	OutputLimit int
	// Pipe gives the process fd 3 (it reads) and fd 4 (it writes), joined
	// to Process.Pipe: what Chromium's --remote-debugging-pipe needs.
	Pipe bool
}

// Box is a workspace's box (see boxDirPath). Safe for concurrent use.
type Box struct {
	s     *Sandbox
	ws    string
	bwrap string

	mu     sync.Mutex
	inst   *boxInst
	procs  map[string]*Process
	next   int
	closed bool
	failed error // the box could not start: its commands get sandboxes of their own
}

// boxInst is one running box: a Box starts another when a command needs
// more of the host than its box binds and nothing runs in it.
type boxInst struct {
	p      profile // what the box binds
	dir    string  // host directory holding the socket's directory and hosts
	dirFD  int     // the socket's directory, opened without following links
	cmd    *exec.Cmd
	l      *launch
	cache  *userCacheServer
	done   chan struct{} // bwrap exited
	active atomic.Int32  // commands running through it
	stderr *capped
}

// Box returns the workspace's box, started on first use. It fails with
// ErrNoBox when commands cannot run in a box here (the Docker backend,
// core's executable unknown).
func (s *Sandbox) Box(ctx context.Context, workspace string) (*Box, error) {
	ws, err := s.workspace(workspace)
	if err != nil {
		return nil, err
	}
	if s.cfg.Mode == ModeOff {
		return nil, errors.New("CORE_SESSION_SANDBOX=off: nothing runs confined")
	}
	p := s.Probe(ctx)
	if !p.Usable {
		return nil, p.Err()
	}
	if p.Backend != BackendBwrap {
		return nil, fmt.Errorf("%w: the %s backend runs each command in a container of its own", ErrNoBox, p.Backend)
	}
	b, err := s.boxFor(ws, p.Bwrap)
	if err != nil {
		return nil, err
	}
	inst, err := b.acquire(ctx, nil)
	if err != nil {
		return nil, err
	}
	inst.active.Add(-1)
	return b, nil
}

// agentExe is core's executable for the agent, or "" for no box.
func (s *Sandbox) agentExe() string {
	exe := s.cfg.Agent
	if exe == "" {
		exe = s.cfg.CacheProg
	}
	if exe == "" || !isExecutable(exe) {
		return ""
	}
	return exe
}

// boxFor returns the workspace's Box, made if missing.
func (s *Sandbox) boxFor(ws, bwrap string) (*Box, error) {
	if s.agentExe() == "" {
		return nil, fmt.Errorf("%w: core's executable, which runs the box's agent, is not known", ErrNoBox)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.boxes[ws]; b != nil {
		return b, nil
	}
	if s.boxes == nil {
		s.boxes = map[string]*Box{}
	}
	b := &Box{s: s, ws: ws, bwrap: bwrap, procs: map[string]*Process{}}
	s.boxes[ws] = b
	return b, nil
}

// Close closes every box: their processes are killed and waited for. A
// command run later starts its workspace's box afresh.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	boxes := s.boxes
	s.boxes = nil
	s.mu.Unlock()
	var errs []error
	for _, b := range boxes {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}

// CloseBox closes the workspace's box, if it has one: a session's end.
func (s *Sandbox) CloseBox(workspace string) error {
	ws, err := s.workspace(workspace)
	if err != nil {
		return nil // no workspace, no box
	}
	s.mu.Lock()
	b := s.boxes[ws]
	s.mu.Unlock()
	if b == nil {
		return nil
	}
	return b.Close()
}

// errBoxBusy says a command needs another box while this one has work.
var errBoxBusy = errors.New("the box binds less than the command needs and cannot restart while something runs in it")

// acquire returns a running box that holds what need needs (nil: the
// box as it starts), starting or restarting it as needed; the caller
// releases it with inst.active.Add(-1).
func (b *Box) acquire(ctx context.Context, need *profile) (*boxInst, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("the box is closed")
	}
	if b.failed != nil {
		return nil, b.failed
	}
	inst := b.inst
	if inst != nil && inst.alive() && (need == nil || inst.p.holds(*need)) {
		inst.active.Add(1)
		return inst, nil
	}
	var prev *profile
	if inst != nil {
		if inst.alive() && (inst.active.Load() > 0 || b.runningLocked()) {
			return nil, errBoxBusy
		}
		prev = &inst.p
		inst.stop()
		b.inst = nil
	}
	p, err := b.s.boxProfile(b.ws, need, prev)
	if err != nil {
		return nil, err
	}
	inst, err = b.s.startBox(ctx, b.bwrap, p)
	if err != nil {
		if ctx.Err() == nil {
			b.failed = err // once is enough
		}
		return nil, err
	}
	b.inst = inst
	inst.active.Add(1)
	return inst, nil
}

// runningLocked reports whether a background process still runs.
func (b *Box) runningLocked() bool {
	for _, p := range b.procs {
		if _, running, _ := p.Output(); running {
			return true
		}
	}
	return false
}

// Close kills every process in the box and waits for them.
func (b *Box) Close() error {
	b.mu.Lock()
	b.closed = true
	inst := b.inst
	b.inst = nil
	procs := b.procs
	b.procs = map[string]*Process{}
	b.mu.Unlock()
	for _, p := range procs {
		p.abort()
	}
	if inst != nil {
		inst.stop()
	}
	for _, p := range procs {
		<-p.done
	}
	b.s.mu.Lock()
	if b.s.boxes[b.ws] == b {
		delete(b.s.boxes, b.ws)
	}
	b.s.mu.Unlock()
	return nil
}

// boxProfile is the profile a box starts with: the production profile
// of the workspace with the tools of the ecosystems found in it, and what
// need and the box before it (prev) needed.
func (s *Sandbox) boxProfile(ws string, need, prev *profile) (profile, error) {
	p, err := s.commandProfile([]string{"sh"}, RunOptions{Workspace: ws})
	if err != nil {
		return profile{}, err
	}
	var tools []string
	if project, err := Detect(ws); err == nil {
		for _, e := range Ecosystems() {
			if project.Has(e.Name) {
				tools = append(tools, e.Tools...)
			}
		}
	}
	for _, t := range tools {
		v := s.toolView(t)
		p.toolRoots = appendNew(p.toolRoots, v.toolRoots...)
	}
	for _, q := range []*profile{prev, need} {
		if q == nil {
			continue
		}
		p.toolRoots = appendNew(p.toolRoots, q.toolRoots...)
		p.modKeep = appendNew(p.modKeep, q.modKeep...)
		for _, d := range q.depBinds {
			p.depBinds = slices.DeleteFunc(p.depBinds, func(o bind) bool { return o.inside == d.inside })
			p.depBinds = append(p.depBinds, d)
		}
	}
	if need != nil {
		p.modView = need.modView
	}
	scans := slices.Clone(p.maskScans)
	for _, r := range p.toolRoots {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			scans = append(scans, s.rootOnly([]string{r}))
		}
	}
	p.maskScans = scans
	p.masks = maskArgs(scans...)
	return p, nil
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// holds reports whether a box of profile box binds all a command of
// profile p needs.
func (box profile) holds(p profile) bool {
	if p.network || p.scratch != "" || len(p.extraRO) > 0 || p.workspace != box.workspace ||
		p.modCache != box.modCache || p.modView != box.modView || p.buildCache != box.buildCache || p.tmpSize != box.tmpSize {
		return false
	}
	for _, r := range append(slices.Clone(p.toolRoots), p.modKeep...) {
		if !slices.Contains(box.toolRoots, r) && !slices.Contains(box.modKeep, r) {
			return false
		}
	}
	for _, d := range p.depBinds {
		if !slices.Contains(box.depBinds, d) {
			return false
		}
	}
	return true
}

// startBox starts a box of profile p and waits for its agent to listen.
func (s *Sandbox) startBox(ctx context.Context, bwrap string, p profile) (*boxInst, error) {
	s.boxSweep.Do(sweepBoxDirs)
	dir, err := os.MkdirTemp("", fmt.Sprintf("core-box-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("start the box: %w", err)
	}
	inst := &boxInst{dir: dir, dirFD: -1, done: make(chan struct{}), stderr: newCapped(4 << 10)}
	fail := func(err error) (*boxInst, error) {
		inst.stop()
		return nil, fmt.Errorf("start the box: %w", err)
	}
	sock := filepath.Join(dir, "s")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return fail(err)
	}
	if p.hosts == "" {
		p.hosts = filepath.Join(dir, "hosts")
		if err := os.WriteFile(p.hosts, []byte(boxHosts), 0o644); err != nil {
			return fail(err)
		}
	}
	if inst.dirFD, err = unix.Open(sock, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
		return fail(err)
	}
	p.agent, p.boxDir = s.agentExe(), sock
	if srv := s.serveBuildCache([]string{"go"}, p); srv != nil {
		inst.cache = srv
		p.cacheProg, p.cacheSock, p.cacheStage = s.cfg.CacheProg, srv.socket(), srv.stage
		p.cacheShared = s.sharedLayer()
	}
	inst.p = p
	prog, err := s.seccomp(false)
	if err != nil {
		return fail(err)
	}
	for attempt := 0; ; attempt++ {
		err = inst.launch(ctx, bwrap, prog, s.cfg.Limits, s.cgroupParents())
		if err == nil || attempt > 0 || !vanishedMask(inst.stderr.text()) {
			break
		}
		// A masked path went between the profile and bwrap: the masks
		// again, once.
		inst.p.masks = maskArgs(inst.p.maskScans...)
		inst.stderr = newCapped(4 << 10)
		inst.done = make(chan struct{})
	}
	if err != nil {
		return fail(err)
	}
	return inst, nil
}

// launch starts bwrap for the box and waits for its agent's first line.
func (inst *boxInst) launch(ctx context.Context, bwrap string, prog []byte, limits Limits, parents cgroupParents) error {
	l, err := newLaunch(prog, limits, parents, false)
	if err != nil {
		return err
	}
	argv := []string{cacheProgPath, "sandbox", "agent", "--socket", boxDirPath + "/" + boxSocket}
	path, args := l.gate(bwrap, inst.p.args(argv))
	c := exec.Command(path, args...)
	c.Env = []string{}
	c.Dir = inst.p.workspace
	c.Stderr = inst.stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		l.close()
		return err
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	c.ExtraFiles = l.files
	if err := c.Start(); err != nil {
		l.close()
		return err
	}
	inst.cmd, inst.l = c, l
	if _, err := l.release(ctx, c.Process.Pid, ""); err != nil {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		_ = c.Wait()
		close(inst.done)
		inst.l = nil
		return err
	}
	ready := make(chan error, 1)
	read := make(chan struct{})
	go func() {
		line, err := bufio.NewReaderSize(stdout, 256).ReadString('\n')
		if err == nil && strings.TrimSpace(line) != boxReady {
			err = fmt.Errorf("the agent said %q", line)
		}
		ready <- err
		close(read)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	done := inst.done
	go func() {
		<-read // Wait closes stdout: after the line is read
		_ = c.Wait()
		close(done)
	}()
	t := time.NewTimer(boxStartTimeout)
	defer t.Stop()
	var werr error
	select {
	case err := <-ready:
		if err == nil {
			return nil
		}
		werr = fmt.Errorf("its agent never listened: %v", err)
	case <-ctx.Done():
		werr = ctx.Err()
	case <-t.C:
		werr = fmt.Errorf("its agent did not listen within %s", boxStartTimeout)
	}
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	<-done
	l.cg.remove()
	inst.l = nil
	if out := strings.TrimSpace(inst.stderr.text()); out != "" {
		werr = fmt.Errorf("%w: %s", werr, out)
	}
	return werr
}

// vanishedMask reports whether bwrap failed to set up a mount on a path
// that no longer exists (a mask's target removed after the profile).
func vanishedMask(out string) bool {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	rest, ok := strings.CutPrefix(line, "bwrap: ")
	if !ok {
		return false
	}
	for _, f := range strings.Fields(rest) {
		f = strings.TrimRight(f, ":,'\"")
		f = strings.TrimLeft(f, "'\"")
		if !strings.HasPrefix(f, "/") {
			continue
		}
		if _, err := os.Lstat(f); errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}

// sweepBoxDirs removes the host directories of boxes whose core was
// killed (their names carry its pid), from the system's temporary
// directory.
func sweepBoxDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "core-box-*"))
	for _, d := range dirs {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), "core-box-"), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue
		}
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			os.RemoveAll(d)
		}
	}
}

// alive reports whether the box's bwrap still runs.
func (inst *boxInst) alive() bool {
	select {
	case <-inst.done:
		return false
	default:
		return true
	}
}

// stop kills everything in the box, waits for bwrap and removes what
// the box had on the host.
func (inst *boxInst) stop() {
	if inst.cmd != nil && inst.cmd.Process != nil {
		_ = syscall.Kill(-inst.cmd.Process.Pid, syscall.SIGKILL)
		<-inst.done
	}
	if inst.l != nil && inst.l.cg != nil {
		inst.l.cg.remove() // kills what is left in its cgroups
	}
	if inst.cache != nil {
		inst.cache.Close()
	}
	if inst.dirFD >= 0 {
		unix.Close(inst.dirFD)
		inst.dirFD = -1
	}
	os.RemoveAll(inst.dir)
}

// dial connects to the agent without following a link the box may have
// put in the socket's place.
func (inst *boxInst) dial() (net.Conn, error) {
	fd, err := unix.Openat(inst.dirFD, boxSocket, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("the box's agent: %w", err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil, errors.New("the box's agent: its socket is not a socket")
	}
	c, err := net.Dial("unix", "/proc/self/fd/"+strconv.Itoa(fd))
	if err != nil {
		return nil, fmt.Errorf("the box's agent: %w", err)
	}
	return c, nil
}

// runBoxed runs a confined command through the workspace's box when
// there is one to use: ok is false when the command must get a sandbox of
// its own (no box here, NoBox, a compile-only go command whose puts are
// promoted, a box that cannot start or hold it).
func (s *Sandbox) runBoxed(ctx context.Context, bwrap string, p profile, argv []string, opts RunOptions) (Result, bool, error) {
	if opts.NoBox || p.workspace == "" || bwrap == "" {
		return Result{}, false, nil
	}
	if compilesOnly(argv) && s.sharedLayer() != "" && s.relays(argv, p) {
		// Only a sandbox of its own tells what this command alone put,
		// which the repository's later runs may share (layers.go).
		return Result{}, false, nil
	}
	if requestSize(argv, p.env()) > maxArgBytes {
		return Result{}, false, nil // too long for a frame: bwrap takes it
	}
	b, err := s.boxFor(p.workspace, bwrap)
	if err != nil {
		return Result{}, false, nil
	}
	inst, err := b.acquire(ctx, &p)
	if err != nil {
		return Result{}, false, nil
	}
	defer inst.active.Add(-1)
	if s.relays(argv, p) {
		p.cacheProg, p.cacheSock, p.cacheStage, p.cacheShared = inst.p.cacheProg, inst.p.cacheSock, inst.p.cacheStage, inst.p.cacheShared
	}
	r, err := inst.run(ctx, argv, p.env(), p.workspace, s.cfg.Limits, opts)
	if err == nil && p.cacheProg != "" && r.ExitCode != 0 && cacheProgFailed.MatchString(r.Output) {
		// Core's executable could not serve the cache inside: the
		// command again without it, and no more tries for this Sandbox.
		s.noCacheProg.Store(true)
		p.cacheProg = ""
		r, err = inst.run(ctx, argv, p.env(), p.workspace, s.cfg.Limits, opts)
	}
	if err != nil && ctx.Err() == nil {
		// The agent went, or broke the protocol: this box is done for,
		// and the next command starts another.
		b.mu.Lock()
		if b.inst == inst {
			b.inst = nil
		}
		b.mu.Unlock()
		go inst.stop()
		if errors.Is(err, errNotSent) {
			return Result{}, false, nil // nothing ran: a sandbox of its own
		}
		// Something of the command ran: what it printed, and what broke.
		r.ExitCode = -1
		r.Output += fmt.Sprintf("\n[core's agent in the box failed: %v; the next command starts a new box]\n", err)
		err = nil
	}
	r.Argv = argv
	r.Sandboxed = true
	return r, true, err
}

// errNotSent says the command never reached the agent.
var errNotSent = errors.New("the command never reached the box's agent")

// Run runs argv in the box, as Sandbox.Run does in the box's workspace.
func (b *Box) Run(ctx context.Context, argv []string, opts RunOptions) (Result, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return Result{}, errors.New("the box is closed")
	}
	opts.Workspace = b.ws
	opts.NoBox = false
	return b.s.Run(ctx, argv, opts)
}

// run sends one command to the agent and waits for its end.
func (inst *boxInst) run(ctx context.Context, argv, env []string, ws string, limits Limits, opts RunOptions) (Result, error) {
	before := inst.l.cg.events()
	c, err := inst.dial()
	if err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("%w: %v", errNotSent, err)
	}
	defer c.Close()
	req := boxRequest{Argv: argv, Env: env, Dir: ws, TimeoutMS: opts.Timeout.Milliseconds()}
	if err := sendRequest(c, req); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("%w: %v", errNotSent, err)
	}
	start := time.Now()
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if opts.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, opts.Timeout+boxGrace)
	}
	defer cancel()
	var grew atomic.Bool
	watch := &launch{limits: limits}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		select {
		case <-runCtx.Done():
			c.Close() // the agent kills the command when its connection ends
		case <-done:
		}
	}()
	go func() {
		defer wg.Done()
		watch.watchWorkspace(runCtx, done, func() { grew.Store(true); c.Close() }, ws)
	}()
	out := newCapped(opts.OutputLimit)
	var w io.Writer = out
	if opts.Progress != nil {
		w = io.MultiWriter(out, opts.Progress)
	}
	exit, rerr := readUntilExit(bufio.NewReaderSize(c, 64<<10), w, nil)
	close(done)
	wg.Wait()
	r := Result{Duration: time.Since(start), ExitCode: exit.Code}
	r.Output, r.Cut = out.String()
	switch {
	case ctx.Err() != nil:
		r.ExitCode = -1
		return r, ctx.Err()
	case grew.Load():
		r.ExitCode = -1
	case runCtx.Err() != nil || exit.TimedOut:
		r.ExitCode = -1
		r.TimedOut = true
		r.Output += fmt.Sprintf("\n[killed: the command ran past its %s timeout]\n", opts.Timeout)
	case rerr != nil:
		r.ExitCode = -1
		return r, rerr
	case exit.Err != "":
		r.ExitCode = -1
		return r, fmt.Errorf("the box's agent: %s", exit.Err)
	}
	name := inst.l.cg.eventsSince(before)
	if name == "" && (grew.Load() || (watch.based && treeSize(ws)-watch.baseline > limits.WorkspaceGrowth)) {
		name = LimitWorkspace
	}
	if name == "" {
		name = limitFromOutput(&r, ws)
	}
	if name != "" {
		r.Limit = name
		r.Output += limitNote(name, limits)
		if r.ExitCode == 0 {
			r.ExitCode = 1
		}
	}
	return r, nil
}

// requestSize estimates what a request's argv and environment take.
func requestSize(argv, env []string) int {
	n := 0
	for _, s := range argv {
		n += len(s) + 8
	}
	for _, s := range env {
		n += len(s) + 8
	}
	return n
}

// sendRequest sends a request, refusing one too big for a frame.
func sendRequest(c net.Conn, req boxRequest) error {
	if n := requestSize(req.Argv, req.Env); n > maxArgBytes {
		return fmt.Errorf("the command and its environment take %d bytes, more than the box takes (%d)", n, maxArgBytes)
	}
	return writeJSONFrame(c, frameRequest, req)
}

// readUntilExit reads the agent's replies into out (and the pipe's into
// pipe, when set) until the exit frame.
func readUntilExit(r *bufio.Reader, out io.Writer, pipe func(data []byte, end bool)) (boxExit, error) {
	started := false
	for {
		rep, err := readReply(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the box's agent closed the connection before the command's end")
			}
			return boxExit{Code: -1}, fmt.Errorf("the box's agent: %w", err)
		}
		switch rep.kind {
		case frameStarted:
			if started {
				return boxExit{Code: -1}, fmt.Errorf("the box's agent: %w: started twice", errFrame)
			}
			started = true
		case frameOutput:
			_, _ = out.Write(rep.data)
		case framePipe, framePipeEnd:
			if pipe == nil {
				return boxExit{Code: -1}, fmt.Errorf("the box's agent: %w: pipe data for a command without a pipe", errFrame)
			}
			pipe(rep.data, rep.kind == framePipeEnd)
		case frameExit:
			return rep.exit, nil
		}
	}
}
