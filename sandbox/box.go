package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/gate"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/mask"
	"github.com/coreagent/core/sandbox/output"
)

// A box is one long-lived bwrap sandbox per workspace, with the profile,
// limits and filter of a confined command, started on the workspace's
// first confined command (or Sandbox.Box). Inside runs core's agent
// (sandbox/boxagent), which runs each command the host sends over its socket
// (sandbox/boxagent/boxproto.go) under a runner of its own, which ends everything the
// command started when it ends (sandbox/boxagent/boxreap.go). A command costs a
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
	// zero means output.DefaultLimit.
	OutputLimit int
	// Pipe gives the process fd 3 (it reads) and fd 4 (it writes), joined
	// to Process.Pipe: what Chromium's --remote-debugging-pipe needs.
	Pipe bool
}

// Box is a workspace's box (see boxDirPath). Safe for concurrent use.
type Box struct {
	s      *Sandbox
	ws     string
	bwrap  string
	docker *dockerBackend // the Docker backend's box: a sibling container (dockerbox.go, sandbox/docker/box.go)

	mu       sync.Mutex
	inst     *boxInst
	procs    map[string]*Process
	next     int
	closed   bool
	starting chan struct{} // closed when the start under way ends; nil when none is
	// failed is why the box last could not start, at failedAt, after
	// failures starts in a row: its commands get sandboxes of their own
	// until retryAt says the next one may try again.
	failed   error
	failedAt time.Time
	failures int
}

// boxInst is one running box: a Box starts another when a command needs
// more of the host than its box binds and nothing runs in it.
type boxInst struct {
	p      profile              // what the box binds (bwrap)
	ctr    *docker.BoxContainer // the box's sibling container (Docker)
	dir    string               // host directory holding the socket's directory and hosts
	dirFD  int                  // the socket's directory, opened without following links
	cmd    *exec.Cmd
	l      *gate.Launch
	cache  *gocache.UserServer
	done   chan struct{} // bwrap exited
	active atomic.Int32  // commands running through it
	stderr *output.Capped
}

// Box returns the workspace's box, started on first use: a bwrap sandbox,
// or a sibling container under the Docker backend. It fails with ErrNoBox
// when commands cannot run in a box here (core's executable unknown).
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
	var b *Box
	var inst *boxInst
	switch d, ok := p.chosen().(*dockerBackend); {
	case ok:
		if b, err = s.boxFor(ws, "", d); err != nil {
			return nil, err
		}
		inst, err = b.acquireDocker(ctx, nil)
	case p.Backend == BackendBwrap:
		if b, err = s.boxFor(ws, p.Bwrap, nil); err != nil {
			return nil, err
		}
		inst, err = b.acquire(ctx, nil)
	default:
		return nil, fmt.Errorf("%w: the %s backend has none", ErrNoBox, p.Backend)
	}
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
	if exe == "" || !limit.IsExecutable(exe) {
		return ""
	}
	return exe
}

// boxFor returns the workspace's Box, made if missing: a bwrap one, or
// the Docker backend's when d is set.
func (s *Sandbox) boxFor(ws, bwrap string, d *dockerBackend) (*Box, error) {
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
	b := &Box{s: s, ws: ws, bwrap: bwrap, docker: d, procs: map[string]*Process{}}
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
	fits := func(inst *boxInst) bool { return need == nil || inst.p.holds(*need) }
	return b.acquireWith(ctx, fits, func(ctx context.Context, prev *boxInst) (*boxInst, error) {
		var pp *profile
		if prev != nil {
			pp = &prev.p
		}
		p, err := b.s.boxProfile(b.ws, need, pp)
		if err != nil {
			return nil, err
		}
		return b.s.startBox(ctx, b.bwrap, p)
	})
}

// acquireWith returns the running box when fits says it holds what the
// command needs, else starts one (given the box before it, stopped, or
// nil), unless something still runs in the box. The box starts without
// the lock held: a slow start blocks neither Close nor the commands that
// give up waiting (their ctx), and one start serves every command waiting
// for it. A failed start is tried again once retryAt allows.
func (b *Box) acquireWith(ctx context.Context, fits func(*boxInst) bool, start func(ctx context.Context, prev *boxInst) (*boxInst, error)) (*boxInst, error) {
	for {
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return nil, errBoxClosed
		}
		if wait := b.starting; wait != nil {
			b.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if b.failed != nil && time.Now().Before(retryAt(b.failedAt, b.failures)) {
			err := b.failed
			b.mu.Unlock()
			return nil, err
		}
		inst := b.inst
		if inst != nil && inst.alive() && fits(inst) {
			inst.active.Add(1)
			b.mu.Unlock()
			return inst, nil
		}
		if inst != nil && inst.alive() && (inst.active.Load() > 0 || b.runningLocked()) {
			b.mu.Unlock()
			return nil, errBoxBusy
		}
		b.inst = nil
		done := make(chan struct{})
		b.starting = done
		b.mu.Unlock()
		return b.startWith(ctx, inst, start, done)
	}
}

// startWith stops the box before (prev, or nil) and starts the next one
// with no lock held, then hands it to the command that started it: done
// wakes the commands that waited for the start.
func (b *Box) startWith(ctx context.Context, prev *boxInst, start func(ctx context.Context, prev *boxInst) (*boxInst, error), done chan struct{}) (*boxInst, error) {
	if prev != nil {
		prev.stop()
	}
	inst, err := start(ctx, prev)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.starting = nil
	close(done)
	if err != nil {
		if ctx.Err() == nil {
			b.failed, b.failedAt = err, time.Now()
			b.failures++
		}
		return nil, err
	}
	if b.closed {
		go inst.stop() // Close came while it started
		return nil, errBoxClosed
	}
	b.failed, b.failures = nil, 0
	b.inst = inst
	inst.active.Add(1)
	return inst, nil
}

// errBoxClosed says the box was closed: nothing more runs in it.
var errBoxClosed = errors.New("the box is closed")

// retryAt is when a box that failed to start failures times in a row, the
// last at failedAt, may try again: a second after the first failure,
// doubling up to a minute, so a box that cannot start costs its commands
// little and one that could start again (a transient failure: the machine
// out of processes for a moment) does.
func retryAt(failedAt time.Time, failures int) time.Time {
	wait := time.Minute
	if failures >= 1 && failures <= 6 {
		wait = time.Second << (failures - 1)
	}
	return failedAt.Add(wait)
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
	if project, err := lang.Detect(ws, deps.PythonFetches); err == nil {
		for _, e := range lang.Ecosystems() {
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
			p.depBinds = slices.DeleteFunc(p.depBinds, func(o deps.Bind) bool { return o.Inside == d.Inside })
			p.depBinds = append(p.depBinds, d)
		}
		p.depWritable = appendNew(p.depWritable, q.depWritable...)
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
	p.masks = mask.Args(scans...)
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
	for _, w := range p.depWritable {
		if !slices.Contains(box.depWritable, w) {
			return false
		}
	}
	return true
}
