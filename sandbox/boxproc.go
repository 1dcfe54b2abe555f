package sandbox

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/output"
)

// Process is a background process in a box: its output is kept (head and
// tail) and readable while it runs; it ends when stopped, when its box
// closes, or by itself.
type Process struct {
	id   string
	seq  int // its place among the box's starts
	argv []string
	conn net.Conn
	wmu  sync.Mutex // one frame at a time to the agent

	out     *output.Capped
	mu      sync.Mutex
	running bool
	code    int
	err     error
	limit   string        // the limit core stopped it for (boxwatch.go)
	done    chan struct{} // the agent said the process ended, or went

	pipe *processPipe
}

// Start starts argv in the background in the box. Its tool's view, PATH
// and ecosystem environment are a confined command's; opts.Env adds to
// them. The process is in the box's loopback: later commands reach a
// server it runs on 127.0.0.1 or localhost.
func (b *Box) Start(ctx context.Context, argv []string, opts StartOptions) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to start")
	}
	dir, err := b.startDir(opts)
	if err != nil {
		return nil, err
	}
	inst, env, err := b.prepare(ctx, argv)
	if err != nil {
		return nil, err
	}
	defer inst.active.Add(-1)
	env = docker.MergeEnv(env, opts.Env)
	c, err := inst.dial()
	if err != nil {
		return nil, err
	}
	pr := &Process{argv: argv, conn: c, out: output.NewCapped(opts.OutputLimit), running: true, code: -1, done: make(chan struct{})}
	before := inst.cgroup().Events()
	if err := sendRequest(c, boxagent.Request{Argv: argv, Env: env, Dir: dir, Pipe: opts.Pipe}); err != nil {
		c.Close()
		return nil, err
	}
	var onPipe func([]byte, bool)
	if opts.Pipe {
		pr.pipe = newProcessPipe(pr)
		onPipe = pr.pipe.deliver
	}
	br := bufio.NewReaderSize(c, 64<<10)
	rep, err := firstReply(ctx, c, br)
	if err != nil || rep.Kind == boxagent.FramePipe || rep.Kind == boxagent.FramePipeEnd {
		c.Close()
		return nil, fmt.Errorf("the box's agent: %v", orFrameErr(err))
	}
	if rep.Kind != boxagent.FrameStarted {
		// It did not start: what the agent said is its output.
		if rep.Kind == boxagent.FrameOutput {
			pr.out.Write(rep.Data)
			exit, _ := readUntilExit(br, pr.out, onPipe)
			c.Close()
			return nil, fmt.Errorf("%s did not start (exit status %d): %s", argv[0], exit.Code, strings.TrimSpace(pr.out.Text()))
		}
		c.Close()
		return nil, fmt.Errorf("%s did not start: %s", argv[0], rep.Exit.Err)
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		c.Close()
		return nil, errors.New("the box is closed")
	}
	b.next++
	pr.id, pr.seq = "p"+strconv.Itoa(b.next), b.next
	b.procs[pr.id] = pr
	b.mu.Unlock()
	go b.watch(pr, inst, before)
	go func() {
		exit, err := readUntilExit(br, pr.out, onPipe)
		c.Close()
		pr.ended(exit, err, before, inst.cgroup().Events(), b.s.cfg.Limits)
		if pr.pipe != nil {
			pr.pipe.deliver(nil, true)
		}
		close(pr.done)
	}()
	return pr, nil
}

// startDir is the working directory opts asks for, in the workspace,
// once opts.Env is NAME=value pairs.
func (b *Box) startDir(opts StartOptions) (string, error) {
	dir := b.ws
	if opts.Dir != "" && opts.Dir != "." {
		if !filepath.IsLocal(opts.Dir) {
			return "", fmt.Errorf("the directory %q must be relative to the workspace and inside it", opts.Dir)
		}
		dir = filepath.Join(b.ws, opts.Dir)
	}
	for _, kv := range opts.Env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || strings.ContainsAny(name, " \t\n\x00") {
			return "", fmt.Errorf("the environment entry %q is not NAME=value", kv)
		}
	}
	return dir, nil
}

// firstReply reads the agent's first frame for a started process, which
// says whether it started: within boxStartTimeout, or ctx, whichever
// ends first.
func firstReply(ctx context.Context, c net.Conn, br *bufio.Reader) (boxagent.Reply, error) {
	deadline := time.Now().Add(boxStartTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.SetReadDeadline(deadline)
	stopWatch := context.AfterFunc(ctx, func() { _ = c.SetReadDeadline(time.Now()) })
	rep, err := boxagent.ReadReply(br)
	stopWatch()
	_ = c.SetReadDeadline(time.Time{})
	return rep, err
}

// prepare acquires a box that holds what argv needs and says the
// environment argv runs with in it; the caller releases the box with
// inst.active.Add(-1).
func (b *Box) prepare(ctx context.Context, argv []string) (*boxInst, []string, error) {
	if b.docker != nil {
		return b.docker.prepareBoxed(ctx, b, argv)
	}
	p, err := b.s.commandProfile(argv, RunOptions{Workspace: b.ws})
	if err != nil {
		return nil, nil, err
	}
	inst, err := b.acquire(ctx, &p)
	if err != nil {
		return nil, nil, err
	}
	p.cacheProg, p.cacheSock, p.cacheStage, p.cacheShared = inst.p.cacheProg, inst.p.cacheSock, inst.p.cacheStage, inst.p.cacheShared
	return inst, p.env(), nil
}

func orFrameErr(err error) error {
	if err == nil {
		return fmt.Errorf("%w: pipe data before the start", boxagent.ErrFrame)
	}
	return err
}

// Process returns a background process of the box by its ID, or nil.
func (b *Box) Process(id string) *Process {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.procs[id]
}

// Processes returns the box's background processes, running or ended.
func (b *Box) Processes() []*Process {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*Process, 0, len(b.procs))
	for _, p := range b.procs {
		out = append(out, p)
	}
	return out
}

// BackgroundProcesses returns the background processes of the
// workspace's box, running or ended, by their start; none when it has no
// box (it starts none).
func (s *Sandbox) BackgroundProcesses(workspace string) []*Process {
	ws, err := s.workspace(workspace)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	b := s.boxes[ws]
	s.mu.Unlock()
	if b == nil {
		return nil
	}
	procs := b.Processes()
	slices.SortFunc(procs, func(x, y *Process) int { return cmp.Compare(x.seq, y.seq) })
	return procs
}

// ID names the process in its box.
func (p *Process) ID() string { return p.id }

// Argv is the command the process runs.
func (p *Process) Argv() []string { return p.argv }

// Output returns the output kept so far, whether the process still runs,
// and its exit status once it ended (-1 when a signal ended it, or the
// agent went).
func (p *Process) Output() (out string, running bool, exitCode int) {
	p.mu.Lock()
	running, code := p.running, p.code
	p.mu.Unlock()
	if !running && code > 128 {
		code = -1
	}
	return p.out.Text(), running, code
}

// Done is closed once the process ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop ends the process: SIGTERM to every process under its runner
// (sandbox/boxagent/boxreap.go), SIGKILL a second later; when ctx ends first, its
// connection is cut, which kills it at once. It waits for the end, which
// comes once nothing it started is left.
func (p *Process) Stop(ctx context.Context) error {
	if p.pipe != nil {
		p.pipe.r.Close() // what it writes on fd 4 from now on is dropped
	}
	p.wmu.Lock()
	err := boxagent.WriteFrame(p.conn, boxagent.FrameStop, nil)
	p.wmu.Unlock()
	if err != nil {
		p.abort()
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		p.abort()
		<-p.done
	}
	return nil
}

// Stopper is Stop, once however often it is called and within bound,
// for whoever holds the process's pipe (the browser, an MCP server).
func (p *Process) Stopper(bound time.Duration) func() {
	return sync.OnceFunc(func() {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		_ = p.Stop(ctx)
	})
}

// abort cuts the process's connection, which kills it, and drops what its
// pipe still had for the host.
func (p *Process) abort() {
	p.conn.Close()
	if p.pipe != nil {
		p.pipe.r.Close()
	}
}

// Pipe is the host's end of the process's fd 3 and fd 4 (StartOptions.Pipe):
// what is written goes to its fd 3, what it writes on fd 4 is read; nil
// without a pipe.
func (p *Process) Pipe() io.ReadWriteCloser {
	if p.pipe == nil {
		return nil
	}
	return p.pipe
}

// processPipe joins the host to a process's fd 3 and fd 4 over the
// agent's connection.
type processPipe struct {
	p  *Process
	r  *io.PipeReader
	w  *io.PipeWriter
	mu sync.Mutex
	ok bool // the write side is open
}

func newProcessPipe(p *Process) *processPipe {
	r, w := io.Pipe()
	return &processPipe{p: p, r: r, w: w, ok: true}
}

// deliver hands what the process wrote on fd 4 to the reader: it waits
// for the reader, so a process that writes more than is read waits too.
func (pp *processPipe) deliver(data []byte, end bool) {
	if len(data) > 0 {
		_, _ = pp.w.Write(data)
	}
	if end {
		pp.w.Close()
	}
}

func (pp *processPipe) Read(b []byte) (int, error) { return pp.r.Read(b) }

func (pp *processPipe) Write(b []byte) (int, error) {
	pp.mu.Lock()
	ok := pp.ok
	pp.mu.Unlock()
	if !ok {
		return 0, io.ErrClosedPipe
	}
	n := 0
	for len(b) > 0 {
		chunk := b[:min(len(b), boxagent.MaxChunk)]
		pp.p.wmu.Lock()
		err := boxagent.WriteFrame(pp.p.conn, boxagent.FrameInput, chunk)
		pp.p.wmu.Unlock()
		if err != nil {
			return n, err
		}
		n += len(chunk)
		b = b[len(chunk):]
	}
	return n, nil
}

// Close closes the process's fd 3 and stops reading its fd 4.
func (pp *processPipe) Close() error {
	pp.mu.Lock()
	was := pp.ok
	pp.ok = false
	pp.mu.Unlock()
	if was {
		pp.p.wmu.Lock()
		_ = boxagent.WriteFrame(pp.p.conn, boxagent.FrameInputEnd, nil)
		pp.p.wmu.Unlock()
	}
	return pp.r.Close()
}
