package session

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session/mcptool"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/tools"
)

// Completer is the model: one chat completion per turn. *model.Client is
// one.
type Completer interface {
	Complete(ctx context.Context, msgs []model.Message) (model.Reply, error)
}

// Options is everything a run needs, in groups by concern; each group is
// defined beside the code that reads it, with its defaults and checks.
// Entry points (the CLI, the Action, the bot, serve) build it through
// setup and fill only the groups they use; the engine reads nothing else.
type Options struct {
	Goal         Goal           // what to do, on which repository (goal.go)
	Inference    Inference      // the model and how to talk to it (toolcalls.go)
	Verification Verification   // the checks and their tier (verification.go)
	Landing      Landing        // how the work lands (land.go)
	Limits       Limits         // turns, time and money (loop.go)
	Live         Live           // control, idling and reporting (life.go)
	Browser      BrowserOptions // the run's browser (--browser): off unless On (browser.go)
	MCP          mcptool.Config // the run's MCP servers (mcp.go)
	Services     Services       // the collaborators the run uses
}

// Services are the run's collaborators: the clients, stores and streams
// it works with.
type Services struct {
	// GitHub is the client for owner/name repositories; nil for local ones.
	GitHub *gh.Client
	// Secrets are written nowhere: every transcript entry, record, report,
	// progress line, pull request body and comment is scrubbed of them.
	Secrets  []string
	Store    *Store
	Sandbox  *sandbox.Sandbox
	Client   Completer
	Approver tools.Approver
	// Input is where interactive mode reads follow-up instructions and the
	// landing question from; Output is where it asks.
	Input  io.Reader
	Output io.Writer
	// GitEnv is the environment git runs with (PATH, HOME, LANG): nothing
	// else of core's environment reaches git.
	GitEnv []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// withDefaults fills the zero values and checks what is left.
func (s Services) withDefaults() Services {
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Output == nil {
		s.Output = io.Discard
	}
	if s.Approver == nil {
		s.Approver = tools.DenyApprover{}
	}
	return s
}

// check says what is missing.
func (s Services) check() error {
	switch {
	case s.Store == nil:
		return errors.New("no session store")
	case s.Sandbox == nil:
		return errors.New("no sandbox")
	case s.Client == nil:
		return errors.New("no model client")
	}
	return nil
}

// withDefaults fills each group's zero values and checks what is left.
func (o Options) withDefaults() (Options, error) {
	o.Limits = o.Limits.withDefaults()
	o.Verification = o.Verification.withDefaults()
	o.Inference = o.Inference.withDefaults()
	o.Live = o.Live.withDefaults()
	o.Services = o.Services.withDefaults()
	if err := o.Browser.check(tools.Attended(o.Services.Approver)); err != nil {
		return o, err
	}
	for _, check := range []func() error{
		o.Limits.checkTurns, o.checkTimeouts, o.Verification.check,
		o.Inference.checkToolCalls, o.Limits.checkSpend, o.Inference.checkContext,
		o.Services.check,
	} {
		if err := check(); err != nil {
			return o, err
		}
	}
	return o, nil
}

// checkTimeouts refuses a negative timeout of any group.
func (o Options) checkTimeouts() error {
	if o.Limits.Timeout < 0 || o.Limits.TurnTimeout < 0 || o.Verification.ShellTimeout < 0 ||
		o.Live.IdleTimeout < 0 || o.Live.IdleAfterMessage < 0 {
		return optionError("timeout", "timeouts must be positive")
	}
	return nil
}
