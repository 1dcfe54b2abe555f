package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/gate"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/output"
)

// A command in a box (box.go): the request to its agent and the output and
// exit read back.

// runBoxed runs a confined command through the workspace's box when
// there is one to use: ok is false when the command must get a sandbox of
// its own (no box here, NoBox, a compile-only go command whose puts are
// promoted, a box that cannot start or hold it).
func (s *Sandbox) runBoxed(ctx context.Context, bwrap string, p profile, argv []string, opts RunOptions) (Result, bool, error) {
	if opts.NoBox || p.workspace == "" || bwrap == "" {
		return Result{}, false, nil
	}
	if gocache.CompilesOnly(argv) && gocache.SharedLayer(s.cfg.Home, s.cfg.Repo) != "" && s.relays(argv, p) {
		// Only a sandbox of its own tells what this command alone put,
		// which the repository's later runs may share (gocache/layers.go).
		return Result{}, false, nil
	}
	if requestSize(argv, p.env()) > boxagent.MaxArgBytes {
		return Result{}, false, nil // too long for a frame: bwrap takes it
	}
	b, err := s.boxFor(p.workspace, bwrap, nil)
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
	return b.settle(ctx, inst, argv, r, err)
}

// settle finishes a command run through inst: when the agent went or broke
// the protocol, the box is done for and the next command starts another;
// ok is false when nothing ran, so the command gets a sandbox of its own.
func (b *Box) settle(ctx context.Context, inst *boxInst, argv []string, r Result, err error) (Result, bool, error) {
	if err != nil && ctx.Err() == nil {
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
func (inst *boxInst) run(ctx context.Context, argv, env []string, ws string, limits limit.Limits, opts RunOptions) (Result, error) {
	before := inst.cgroup().Events()
	c, err := inst.dial()
	if err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("%w: %v", errNotSent, err)
	}
	defer c.Close()
	req := boxagent.Request{Argv: argv, Env: env, Dir: ws, TimeoutMS: opts.Timeout.Milliseconds(), CeilingMS: opts.BuildCeiling.Milliseconds(), Nice: opts.Background}
	if err := sendRequest(c, req); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("%w: %v", errNotSent, err)
	}
	start := time.Now()
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if opts.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, max(opts.Timeout, opts.BuildCeiling)+boxGrace)
	}
	defer cancel()
	var grew atomic.Bool
	watch := gate.Watch(limits)
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
		watch.WatchWorkspace(runCtx, done, func() { grew.Store(true); c.Close() }, ws)
	}()
	out := output.NewCapped(opts.OutputLimit)
	var w io.Writer = out
	if opts.Progress != nil {
		w = io.MultiWriter(out, opts.Progress)
	}
	exit, rerr := readUntilExit(bufio.NewReaderSize(c, 64<<10), w, nil)
	close(done)
	wg.Wait()
	r := Result{Duration: time.Since(start), ExitCode: exit.Code, Built: time.Duration(exit.BuiltMS) * time.Millisecond}
	r.Output, r.Cut = out.String()
	switch {
	case ctx.Err() != nil:
		r.ExitCode = -1
		return r, ctx.Err()
	case grew.Load():
		r.ExitCode = -1
	case runCtx.Err() != nil || exit.TimedOut:
		r.ExitCode = -1
		r.TimedOut, r.AtCeiling = true, exit.AtCeiling
		r.Output += boxagent.KilledLine(opts.Timeout, opts.BuildCeiling, boxagent.Timing{Built: r.Built, AtCeiling: exit.AtCeiling, Over: true})
	case rerr != nil:
		r.ExitCode = -1
		return r, rerr
	case exit.Err != "":
		r.ExitCode = -1
		return r, fmt.Errorf("the box's agent: %s", exit.Err)
	}
	name := inst.cgroup().EventsSince(before)
	if name == "" {
		name = exit.Limit
	}
	baseline, measured := watch.Baseline()
	if name == "" && (grew.Load() || (measured && gate.TreeSize(ws)-baseline > limits.WorkspaceGrowth)) {
		name = limit.LimitWorkspace
	}
	if name == "" {
		name = gate.LimitFromOutput(r.ExitCode, r.Output, ws)
	}
	r.hit(name, limits)
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
func sendRequest(c net.Conn, req boxagent.Request) error {
	if n := requestSize(req.Argv, req.Env); n > boxagent.MaxArgBytes {
		return fmt.Errorf("the command and its environment take %d bytes, more than the box takes (%d)", n, boxagent.MaxArgBytes)
	}
	return boxagent.WriteJSONFrame(c, boxagent.FrameRequest, req)
}

// readUntilExit reads the agent's replies into out (and the pipe's into
// pipe, when set) until the exit frame.
func readUntilExit(r *bufio.Reader, out io.Writer, pipe func(data []byte, end bool)) (boxagent.Exit, error) {
	started := false
	for {
		rep, err := boxagent.ReadReply(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the box's agent closed the connection before the command's end")
			}
			return boxagent.Exit{Code: -1}, fmt.Errorf("the box's agent: %w", err)
		}
		switch rep.Kind {
		case boxagent.FrameStarted:
			if started {
				return boxagent.Exit{Code: -1}, fmt.Errorf("the box's agent: %w: started twice", boxagent.ErrFrame)
			}
			started = true
		case boxagent.FrameOutput:
			_, _ = out.Write(rep.Data)
		case boxagent.FramePipe, boxagent.FramePipeEnd:
			if pipe == nil {
				return boxagent.Exit{Code: -1}, fmt.Errorf("the box's agent: %w: pipe data for a command without a pipe", boxagent.ErrFrame)
			}
			pipe(rep.Data, rep.Kind == boxagent.FramePipeEnd)
		case boxagent.FrameExit:
			return rep.Exit, nil
		}
	}
}
