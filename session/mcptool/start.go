package mcptool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coreagent/core/internal/buildinfo"
	"github.com/coreagent/core/session/tools"
)

// Defaults of Options.
const (
	DefaultCallTimeout  = 2 * time.Minute
	DefaultStartTimeout = 30 * time.Second
	// DefaultMaxFrame is the most bytes of one message read from a
	// server: a longer one ends the connection (a flood is cut, never
	// held in memory whole).
	DefaultMaxFrame = 1 << 20
	// MaxToolsPerServer and MaxTools bound what is offered to the model.
	MaxToolsPerServer = 32
	MaxTools          = 64
)

// Box starts a repository's stdio server in the run's box: argv with its
// standard input and output joined to the returned pipe, env added to its
// environment; stop ends it and everything it started.
type Box interface {
	StartServer(ctx context.Context, argv, env []string) (pipe io.ReadWriteCloser, stop func(), err error)
}

// Options bound the servers.
type Options struct {
	// Box runs the repository's stdio servers; nil leaves them out.
	Box Box
	// CallTimeout bounds one tool call; zero is DefaultCallTimeout.
	CallTimeout time.Duration
	// StartTimeout bounds a server's start, its handshake and its list
	// of tools; zero is DefaultStartTimeout.
	StartTimeout time.Duration
	// MaxFrame bounds one message from a server; zero is
	// DefaultMaxFrame.
	MaxFrame int
	// HostEnv is the environment a user's stdio server starts with
	// (PATH, HOME, ...), before its own variables; setup fills it.
	HostEnv []string
}

// Servers are the servers of a run, connected.
type Servers struct {
	conns []*conn
	tools []tools.Tool
}

// conn is one connected server.
type conn struct {
	planned Planned
	session *mcp.ClientSession
	stop    func()
}

// Start starts and connects to each planned server, at once, and lists
// their tools. A server that fails to start, to answer or to list its
// tools is left out with a note saying why; the others are kept.
func Start(ctx context.Context, planned []Planned, opts Options) (*Servers, []string) {
	opts = opts.withDefaults()
	type started struct {
		c     *conn
		tools []*mcp.Tool
		err   error
	}
	results := make([]started, len(planned))
	var wg sync.WaitGroup
	for i, p := range planned {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, list, err := connect(ctx, p, opts)
			results[i] = started{c, list, err}
		}()
	}
	wg.Wait()
	s := &Servers{}
	var notes []string
	names := map[string]bool{}
	for i, r := range results {
		p := planned[i]
		if r.err != nil {
			notes = append(notes, fmt.Sprintf("MCP server %q (%s) left out: %v", p.Name, p.Where, r.err))
			continue
		}
		s.conns = append(s.conns, r.c)
		offered, more := s.offer(r.c, r.tools, names, opts)
		if more > 0 {
			notes = append(notes, fmt.Sprintf("MCP server %q: %d of its tools not offered (at most %d a server, %d in all)", p.Name, more, MaxToolsPerServer, MaxTools))
		}
		notes = append(notes, fmt.Sprintf("MCP server %q (%s): %d tools", p.Name, p.Where, offered))
	}
	return s, notes
}

func (o Options) withDefaults() Options {
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = DefaultMaxFrame
	}
	return o
}

// offer adds a server's tools, named uniquely, up to the bounds; it
// returns how many it offered and how many it left out.
func (s *Servers) offer(c *conn, list []*mcp.Tool, names map[string]bool, opts Options) (int, int) {
	offered := 0
	for _, t := range list {
		if offered >= MaxToolsPerServer || len(s.tools) >= MaxTools {
			break
		}
		name := uniqueName(c.planned.Name, t.Name, names)
		s.tools = append(s.tools, newTool(name, c, t, opts.CallTimeout))
		offered++
	}
	return offered, len(list) - offered
}

// Tools are the servers' tools, for the run's tool set.
func (s *Servers) Tools() []tools.Tool {
	if s == nil {
		return nil
	}
	return s.tools
}

// Close ends every server's session and stops its process.
func (s *Servers) Close() {
	if s == nil {
		return
	}
	for _, c := range s.conns {
		c.close()
	}
}

func (c *conn) close() {
	_ = c.session.Close()
	if c.stop != nil {
		c.stop()
	}
}

// connect starts one server and lists its tools, within StartTimeout.
func connect(ctx context.Context, p Planned, opts Options) (*conn, []*mcp.Tool, error) {
	sctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	transport, stop, err := transportFor(ctx, p, opts)
	if err != nil {
		return nil, nil, err
	}
	// No capabilities: a server may not list roots, ask the run's model
	// (sampling) or ask the user (elicitation); it only serves tools.
	client := mcp.NewClient(&mcp.Implementation{Name: "core", Version: buildinfo.Version()}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	session, err := client.Connect(sctx, transport, nil)
	if err != nil {
		stopNow(stop)
		return nil, nil, fmt.Errorf("no MCP handshake within %s: %w", opts.StartTimeout, err)
	}
	c := &conn{planned: p, session: session, stop: stop}
	var list []*mcp.Tool
	for t, err := range session.Tools(sctx, nil) {
		if err != nil {
			c.close()
			return nil, nil, fmt.Errorf("list its tools: %w", err)
		}
		list = append(list, t)
		if len(list) > MaxTools {
			break
		}
	}
	return c, list, nil
}

func stopNow(stop func()) {
	if stop != nil {
		stop()
	}
}

// transportFor starts a stdio server (in the box or on this machine) or
// prepares the client of a remote one.
func transportFor(ctx context.Context, p Planned, opts Options) (mcp.Transport, func(), error) {
	switch p.Where {
	case InBox:
		if opts.Box == nil {
			return nil, nil, errors.New("a repository's server runs only in the run's box, and this run has none")
		}
		pipe, stop, err := opts.Box.StartServer(ctx, p.Argv, p.Env)
		if err != nil {
			return nil, nil, err
		}
		one := &closeOnce{ReadWriteCloser: pipe}
		return &mcp.IOTransport{Reader: one, Writer: one, MaxLineLength: opts.MaxFrame}, stop, nil
	case OnHost:
		return hostCommand(p, opts)
	}
	client := &http.Client{Transport: remoteTransport(p, opts.MaxFrame), CheckRedirect: sameHost}
	return &mcp.StreamableClientTransport{
		Endpoint: p.URL, HTTPClient: client, MaxRetries: -1,
		DisableStandaloneSSE: true, MaxEventSize: opts.MaxFrame,
	}, nil, nil
}

// hostCommand starts a user's stdio server on this machine, in a process
// group of its own that stop kills whole.
func hostCommand(p Planned, opts Options) (mcp.Transport, func(), error) {
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Env = append(append([]string{}, opts.HostEnv...), p.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %q: %w", p.Argv[0], err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = stdin.Close()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
			}
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		})
	}
	return &mcp.IOTransport{Reader: stdout, Writer: stdin, MaxLineLength: opts.MaxFrame}, stop, nil
}

// closeOnce closes its pipe once, though the transport closes it as its
// reader and as its writer.
type closeOnce struct {
	io.ReadWriteCloser
	once sync.Once
	err  error
}

func (c *closeOnce) Close() error {
	c.once.Do(func() { c.err = c.ReadWriteCloser.Close() })
	return c.err
}
