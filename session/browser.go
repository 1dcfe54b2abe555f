package session

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"time"

	"github.com/coreagent/core/sandbox"

	"github.com/coreagent/core/session/browser"
	"github.com/coreagent/core/session/tools"
)

// BrowserDir is where, in the session's directory, the browser's
// screenshots and console log are kept.
const BrowserDir = "browser"

// BrowserOptions are the run's browser (--browser and its options).
type BrowserOptions struct {
	// On offers the model the browser tools.
	On bool
	// Exec is the browser binary (setup resolves --browser-exec, or finds
	// one on PATH, before the run starts).
	Exec string
	// Timeout bounds one browser action; zero is browser.DefaultTimeout.
	Timeout time.Duration
	// Headed shows the browser's window: only for a person at a terminal.
	Headed bool
	// AllowRemote lets pages load from other hosts; every navigation then
	// needs a person's approval, and an unattended run declines it.
	AllowRemote bool
	// Env is added to the browser's environment (LANG, and a display for
	// --headed); setup fills it.
	Env []string
}

// check refuses browser options that cannot work for this run.
func (b BrowserOptions) check(attended bool) error {
	switch {
	case !b.On && (b.Headed || b.AllowRemote):
		opt := "headed"
		if b.AllowRemote {
			opt = "browser-allow-remote"
		}
		return optionError(opt, "needs --browser: it is an option of the run's browser")
	case !b.On:
		return nil
	case b.Exec == "":
		return optionError("browser-exec", "no browser binary: %s", browser.Install)
	case b.Headed && !attended:
		return optionError("headed", "shows the browser's window to a person at a terminal, and this run has none (the Action, the bot, serve and a command line without a terminal run unattended): drop --headed")
	case b.Timeout < 0:
		return optionError("browser-timeout", "must be positive, got %s", b.Timeout)
	}
	return nil
}

// openBrowser gives the run its browser when --browser is on: the tools
// that drive it join the tool set, and the browser itself starts at their
// first use, in the run's box, where it reaches what the model started
// there and nothing else. It never runs on this machine: a run with no box
// was refused before it started (CheckBrowserBox).
func (s *run) openBrowser(ctx context.Context) error {
	b := s.opts.Browser
	if !b.On {
		return nil
	}
	if err := CheckBrowserBox(ctx, b, s.opts.Services.Sandbox); err != nil {
		return err
	}
	attended := tools.Attended(s.opts.Services.Approver)
	cfg := browser.Config{
		Exec:    b.Exec,
		Files:   filepath.Join(s.opts.Services.Store.Dir(s.rec.ID), BrowserDir),
		Timeout: b.Timeout,
		Headed:  b.Headed,
		// Other hosts only where a person approves each navigation.
		AllowRemote: b.AllowRemote && attended,
		// The profile lives in the box's own /tmp, and goes with it.
		DataDir: "/tmp/core-browser-" + s.rec.ID,
	}
	host := boxHost{sb: s.opts.Services.Sandbox, workspace: s.rec.Workspace, env: append([]string{"HOME=" + cfg.DataDir}, b.Env...)}
	s.browser = browser.New(host, cfg)
	s.env.Browser, s.env.Attended, s.env.BrowserRemote = s.browser, attended, b.AllowRemote
	// Added to the run's set, not to the standard one: a review's stays
	// without the write tools.
	s.tools = s.tools.With(tools.BrowserTools()...)
	return nil
}

// CheckBrowserBox refuses --browser where the run can have no box, attended
// or not: the browser runs only in the run's box, never on this machine,
// where a page (and what it makes Chromium do) would meet the host's files,
// network and display. Entry points call it before anything starts
// (setup.Options), and a session before it makes a record.
func CheckBrowserBox(ctx context.Context, b BrowserOptions, sb *sandbox.Sandbox) error {
	if !b.On || sb == nil {
		return nil
	}
	if why := boxless(ctx, sb); why != "" {
		return optionError("browser", "the browser runs only inside the run's box, and this run can have none (%s): run where the sandbox works (bubblewrap, or the Docker backend; CORE_SESSION_SANDBOX=auto), or drop --browser", why)
	}
	return nil
}

// boxless says why the run can have no box, or "" when it can: found
// without starting one (the browser's first action does).
func boxless(ctx context.Context, sb *sandbox.Sandbox) string {
	if sb.Mode() == sandbox.ModeOff {
		return "CORE_SESSION_SANDBOX=off"
	}
	// Both backends have a box: bwrap's, and the Docker backend's sibling
	// container.
	if p := sb.Probe(ctx); !p.Usable {
		return "the sandbox is not usable here: " + p.Err().Error()
	}
	return ""
}

// boxHost starts the browser in the run's box, as a background process
// whose fds 3 and 4 are joined to the host.
type boxHost struct {
	sb        *sandbox.Sandbox
	workspace string
	env       []string
}

func (h boxHost) StartBrowser(ctx context.Context, argv []string) (io.ReadWriteCloser, func(), error) {
	box, err := h.sb.Box(ctx, h.workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("the run's box, for the browser: %w", err)
	}
	p, err := box.Start(ctx, argv, sandbox.StartOptions{Env: h.env, Pipe: true})
	if err != nil {
		return nil, nil, fmt.Errorf("start the browser in the run's box: %w", err)
	}
	// Stop kills the browser's process group; a box that does not answer
	// within the bound is cut off, which kills it too.
	stop := p.Stopper(10 * time.Second)
	return p.Pipe(), stop, nil
}

// closeBrowser stops the browser and every process it started, and lists
// the files it left in the report.
func (s *run) closeBrowser() {
	if s.browser == nil {
		return
	}
	if err := s.browser.Close(); err != nil {
		fmt.Fprintf(s.opts.Live.Progress, "core: closing the browser: %v\n", err)
	}
	for _, f := range s.browser.Files() {
		s.report.Files = appendNew(s.report.Files, path.Join(BrowserDir, f))
	}
	s.browser = nil
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
