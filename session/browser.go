package session

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

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
	// Env is the browser's environment (PATH, LANG); setup fills it.
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
// first use. Until the run's box exists the browser runs on this machine,
// held to its loopback by its own request guard.
func (s *run) openBrowser() error {
	b := s.opts.Browser
	if !b.On {
		return nil
	}
	profile, err := os.MkdirTemp("", "core-browser-")
	if err != nil {
		return fmt.Errorf("browser profile: %w", err)
	}
	s.browserProfile = profile
	env := append([]string{"HOME=" + profile}, b.Env...)
	attended := tools.Attended(s.opts.Approver)
	s.browser = browser.New(browser.HostLauncher{Env: env}, browser.Config{
		Exec:    b.Exec,
		DataDir: filepath.Join(profile, "profile"),
		Files:   filepath.Join(s.opts.Store.Dir(s.rec.ID), BrowserDir),
		Timeout: b.Timeout,
		Headed:  b.Headed,
		// Other hosts only where a person approves each navigation.
		AllowRemote: b.AllowRemote && attended,
	})
	s.env.Browser, s.env.Attended, s.env.BrowserRemote = s.browser, attended, b.AllowRemote
	s.tools = tools.WithBrowser()
	return nil
}

// closeBrowser stops the browser and every process it started, and lists
// the files it left in the report.
func (s *run) closeBrowser() {
	if s.browser == nil {
		return
	}
	if err := s.browser.Close(); err != nil {
		fmt.Fprintf(s.opts.Progress, "core: closing the browser: %v\n", err)
	}
	for _, f := range s.browser.Files() {
		s.report.Files = appendNew(s.report.Files, path.Join(BrowserDir, f))
	}
	s.browser = nil
	if s.browserProfile != "" {
		_ = os.RemoveAll(s.browserProfile)
	}
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
