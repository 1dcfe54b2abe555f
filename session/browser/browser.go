// Package browser drives a headless Chromium for the model's browser
// tools: it starts the browser through a Host (the run's box), speaks the
// DevTools protocol to it over its pipe with chromedp, confines what the
// page may load to this machine's loopback by intercepting every request
// in the browser itself, and keeps the page's console and what it blocked
// until the model asks.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// DefaultTimeout bounds one browser action when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// startTimeout bounds the browser's start (its host's too: the run's box
// may start with it), on a machine that may be busy.
const startTimeout = 2 * time.Minute

// Config is how the run's browser starts and what it may do.
type Config struct {
	// Exec is the browser binary, as Find resolved it.
	Exec string
	// DataDir is the browser's profile directory, where the browser runs
	// (the box's /tmp); the browser makes it.
	DataDir string
	// Files is where screenshots and the console log are written: the
	// session's directory for them, on this machine.
	Files string
	// Timeout bounds each action; zero is DefaultTimeout.
	Timeout time.Duration
	// Headed shows the window (a person at a terminal watches).
	Headed bool
	// AllowRemote lets the page load from hosts other than this machine's
	// loopback.
	AllowRemote bool
}

// Browser is one run's browser: started on first use, one tab, closed
// with the run.
type Browser struct {
	host Host
	cfg  Config

	mu      sync.Mutex // one action at a time
	started bool
	ctx     context.Context // the tab's chromedp context
	closeFn func()
	closed  bool

	log      *consoleLog
	blocked  *blockList
	files    []string // screenshots, in Files
	startErr error
}

// New returns the run's browser; nothing starts until the first action.
func New(host Host, cfg Config) *Browser {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Browser{host: host, cfg: cfg, log: &consoleLog{}, blocked: &blockList{}}
}

// AllowRemote reports whether the page may load from other hosts.
func (b *Browser) AllowRemote() bool { return b.cfg.AllowRemote }

// Timeout is the bound on one action.
func (b *Browser) Timeout() time.Duration { return b.cfg.Timeout }

// Files lists the files the browser wrote (screenshots, then the console
// log when anything was written to it), as names in Config.Files.
func (b *Browser) Files() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	files := append([]string(nil), b.files...)
	if b.log.written() {
		files = append(files, ConsoleFile)
	}
	return files
}

// Argv is the browser's command line.
func Argv(cfg Config) []string {
	argv := []string{cfg.Exec,
		"--remote-debugging-pipe",
		// The box is the sandbox; Chromium's own needs namespaces the box
		// does not give it (and refuses root).
		"--no-sandbox",
		"--user-data-dir=" + cfg.DataDir,
		"--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps", "--disable-extensions",
		"--disable-dev-shm-usage", "--disable-gpu", "--mute-audio",
		"--metrics-recording-only", "--password-store=basic", "--use-mock-keychain",
		"--window-size=1280,800",
	}
	if !cfg.Headed {
		argv = append(argv, "--headless=new", "--hide-scrollbars")
	}
	if !cfg.AllowRemote {
		// Names other than localhost resolve to nothing: a second wall
		// behind the interception, for what it does not see.
		argv = append(argv, "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1 , EXCLUDE [::1]")
	}
	return append(argv, "about:blank")
}

// ErrClosed is returned by an action on a browser the run closed.
var ErrClosed = errors.New("the browser is closed")

// start starts the browser and opens its tab, once.
func (b *Browser) start(ctx context.Context) error {
	if b.closed {
		return ErrClosed
	}
	if b.started {
		return b.startErr
	}
	b.started = true
	b.startErr = b.launch(ctx)
	return b.startErr
}

func (b *Browser) launch(ctx context.Context) error {
	if err := os.MkdirAll(b.cfg.Files, 0o700); err != nil {
		return fmt.Errorf("browser files: %w", err)
	}
	// The browser lives as long as the run, not as the action that
	// started it.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	alloc := &pipeAllocator{host: b.host, argv: Argv(b.cfg)}
	actx, cancelAlloc := chromedp.NewAllocatorContext(life, alloc)
	quiet := func(string, ...any) {}
	tab, cancelTab := chromedp.NewContext(actx, chromedp.WithLogf(quiet), chromedp.WithErrorf(quiet))
	b.closeFn = func() {
		cancelTab()
		cancelAlloc()
		cancel()
		alloc.stop()
	}
	sctx, cancelStart := context.WithTimeout(ctx, max(b.cfg.Timeout, startTimeout))
	defer cancelStart()
	stopStart := context.AfterFunc(sctx, func() {
		if errors.Is(sctx.Err(), context.DeadlineExceeded) || ctx.Err() != nil {
			alloc.stop()
		}
	})
	defer stopStart()
	if err := chromedp.Do(tab); err != nil {
		b.closeFn()
		return fmt.Errorf("start the browser (%s): %w", b.cfg.Exec, err)
	}
	if err := b.log.open(tab, filepath.Join(b.cfg.Files, ConsoleFile)); err != nil {
		b.closeFn()
		return err
	}
	if err := b.guard(tab); err != nil {
		b.closeFn()
		return fmt.Errorf("start the browser's request guard: %w", err)
	}
	b.ctx = tab
	return nil
}

// Close stops the browser and every process it started, and writes the
// console log when the page wrote anything. It is safe to call more than
// once.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if b.closeFn != nil {
		b.closeFn()
	}
	return b.log.close()
}

// pipeAllocator is a chromedp allocator that starts the browser through a
// Host and talks to it over the pipe the host joined.
type pipeAllocator struct {
	host Host
	argv []string

	mu     sync.Mutex
	stopFn func()
}

// Attaches: chromedp opens a tab of its own on the browser, and leaves
// stopping the process to the allocator.
func (a *pipeAllocator) Attaches() bool { return true }

func (a *pipeAllocator) Allocate(ctx context.Context, opts ...chromedp.BrowserOption) (*chromedp.Browser, error) {
	pipe, stop, err := a.host.StartBrowser(ctx, a.argv)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.stopFn = stop
	a.mu.Unlock()
	once := &onceCloser{c: pipe}
	return chromedp.NewBrowserTransport(context.WithoutCancel(ctx), chromedp.NewPipeConn(once, once), opts...)
}

func (a *pipeAllocator) Wait() {}

func (a *pipeAllocator) stop() {
	a.mu.Lock()
	stop := a.stopFn
	a.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// onceCloser closes the pipe once, though chromedp closes both its
// halves.
type onceCloser struct {
	c    io.ReadWriteCloser
	once sync.Once
	err  error
}

func (o *onceCloser) Read(p []byte) (int, error)  { return o.c.Read(p) }
func (o *onceCloser) Write(p []byte) (int, error) { return o.c.Write(p) }
func (o *onceCloser) Close() error {
	o.once.Do(func() { o.err = o.c.Close() })
	return o.err
}
