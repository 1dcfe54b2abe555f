package session

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/tools"
)

// Defaults for Options.
const (
	DefaultMaxTurns      = 40
	DefaultTimeout       = 2 * time.Hour
	DefaultTurnTimeout   = 15 * time.Minute
	DefaultShellTimeout  = 2 * time.Minute
	DefaultContextTokens = 32768
	DefaultModel         = "coder"
)

// Completer is the model: one chat completion per turn. *model.Client is
// one.
type Completer interface {
	Complete(ctx context.Context, msgs []model.Message) (model.Reply, error)
}

// Options is everything a run needs. Entry points (the CLI, the Action, the
// bot, serve) build it; the engine reads nothing else.
type Options struct {
	// ID is the new session's id; empty makes one (NewID). Entry points
	// that must name the session before it starts (a status comment) set it.
	ID string
	// Repo is the repository: owner/name on GitHub, or a local path.
	Repo string
	// Prompt is the goal in words; Issue, for a GitHub repository, takes
	// the goal from an issue. With both, the prompt comes first.
	Prompt string
	Issue  int
	// IssueBefore, when set, is where the issue's conversation ends for the
	// goal (default: the run's start). The Action of a run the bot
	// dispatched sets when the bot took it: what came after reaches the run
	// as messages, its starter's taken and anyone else's refused.
	IssueBefore time.Time
	// PullRequest, for a GitHub repository, is an open pull request whose
	// head the session starts from and lands on.
	PullRequest int
	// Pull is that pull request when the caller already fetched and
	// checked it (LandablePull): it is not fetched again.
	Pull *gh.PullRequest
	// Base is the branch or commit to start from; empty means the
	// repository's default branch. For a GitHub repository, the head branch
	// of an open pull request means: land on that pull request.
	Base string
	// Branch is where the work lands; empty means core-session/<id>.
	Branch string
	// Model is the model name sent to the endpoint; InferenceURL is only
	// recorded.
	Model        string
	InferenceURL string

	MaxTurns     int
	Timeout      time.Duration // the whole run
	TurnTimeout  time.Duration // one generation
	ShellTimeout time.Duration // one run_shell command
	// BuildCeiling is what a command (run_shell's, a check's) may run in
	// all while it compiles: the time a compiler runs among its processes
	// does not count against ShellTimeout, up to this ceiling. Zero means
	// boxagent.BuildCeiling(ShellTimeout).
	BuildCeiling  time.Duration
	ContextTokens int // estimated tokens a request may hold
	Verify        lang.Tier
	// Checks are the user's checks (--check): commands, split on blanks,
	// that the tier lets run unattended. The contract holds the result to
	// them and to every verification command the model runs.
	Checks []string
	// ChecksFromCI adds the checks the repository's own CI runs: the
	// commands of its workflows' run: steps that the tier can run
	// confined (lang.ChecksFromCI).
	ChecksFromCI bool
	// Ready marks the pull request ready for review when the contract
	// held; otherwise it stays a draft.
	Ready  bool
	DryRun bool
	// Clean starts a local repository's session from its HEAD alone;
	// otherwise uncommitted and untracked (not ignored) work is included.
	Clean bool
	// Interactive asks before landing, at Input, and implies AskNext.
	Interactive bool
	// AskNext: the idle run asks for the next instruction at Input (a
	// person at a terminal); /exit or the input's end completes it.
	AskNext bool
	Think   bool
	// IdleTimeout is how long a run that landed waits, idle, for the next
	// message before it completes; zero completes it at once (a terminal
	// still asks for the next instruction). IdleAfterMessage, when longer,
	// replaces it once a person has sent the run a message (a run a
	// trigger started moves onto IdleAttended).
	IdleTimeout      time.Duration
	IdleAfterMessage time.Duration
	// Control, when set, is how the caller hands the run messages,
	// interrupts and stops (the bot, the Action); the run makes its own
	// otherwise. Either way the command line reaches it through the
	// session's socket.
	Control *Control
	// Poll, when set, is called before each turn and, while the run is
	// idle, every PollEvery: the Action reads new comments in it and hands
	// them to Control.
	Poll      func(ctx context.Context)
	PollEvery time.Duration
	// AllowWorkflowChanges lets the session write and land files under
	// .github/workflows: a workflow runs with the repository's secrets on
	// the next push, so by default the tools refuse to write one and
	// landing refuses work that changes one. Recorded; resume keeps it.
	AllowWorkflowChanges bool
	// Price is what the model's tokens cost (nil: no price set, and the
	// cost is unknown, never zero); recorded, so resume keeps it unless
	// given again.
	Price *budget.Price
	// Budget caps what the session may spend; a request that would pass
	// it is not sent and the run ends budget_exhausted. Resume adds it to
	// the session's (a top-up).
	Budget budget.Budget
	// ToolCalls is how actions travel: ToolCallsText (the default: the
	// reply's text), ToolCallsNative (OpenAI function calling) or
	// ToolCallsAuto (native when the server takes tools).
	ToolCalls string
	// Browser is the run's browser (--browser): off unless On.
	Browser BrowserOptions

	// Collaborators.
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
	// Progress receives one line per turn, a turn's line when a command
	// starts, a heartbeat every Heartbeat while a turn takes long, and the
	// output of commands a person approved; nil discards.
	Progress io.Writer
	// Heartbeat is how often a long turn says it still runs; zero means
	// DefaultHeartbeat.
	Heartbeat time.Duration
	// OnState, when set, is called each time the run moves to a state
	// that is not its end (starting, active, idle), with the pull request
	// it landed on so far (the Action keeps its status comment's headline
	// current from it).
	OnState func(status Status, prURL string)
	// OnStep, when set, is called after every turn with the turn and the
	// turn limit (the Action edits its status comment from it).
	OnStep func(step Step, maxTurns int)
	// GitEnv is the environment git runs with (PATH, HOME, LANG): nothing
	// else of core's environment reaches git.
	GitEnv []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// withDefaults fills the zero values and checks what is left.
func (o Options) withDefaults() (Options, error) {
	if o.MaxTurns == 0 {
		o.MaxTurns = DefaultMaxTurns
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.TurnTimeout == 0 {
		o.TurnTimeout = DefaultTurnTimeout
	}
	if o.ShellTimeout == 0 {
		o.ShellTimeout = DefaultShellTimeout
	}
	if o.BuildCeiling == 0 {
		o.BuildCeiling = boxagent.BuildCeiling(o.ShellTimeout)
	}
	if o.ContextTokens == 0 {
		o.ContextTokens = DefaultContextTokens
	}
	if o.Model == "" {
		o.Model = DefaultModel
	}
	if o.Verify == "" {
		o.Verify = lang.TierOff
	}
	if o.Interactive {
		o.AskNext = true
	}
	if o.PollEvery <= 0 {
		o.PollEvery = DefaultPollEvery
	}
	if o.Control == nil {
		o.Control = NewControl()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ToolCalls == "" {
		o.ToolCalls = ToolCallsText
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.Output == nil {
		o.Output = io.Discard
	}
	if o.Approver == nil {
		o.Approver = tools.DenyApprover{}
	}
	if err := o.Browser.check(tools.Attended(o.Approver)); err != nil {
		return o, err
	}
	switch {
	case o.MaxTurns < 0:
		return o, optionError("max-turns", "must be positive, got %d", o.MaxTurns)
	case o.Timeout < 0 || o.TurnTimeout < 0 || o.ShellTimeout < 0 || o.IdleTimeout < 0 || o.IdleAfterMessage < 0:
		return o, optionError("timeout", "timeouts must be positive")
	case o.BuildCeiling < 0:
		return o, optionError("build-ceiling", "must be a positive duration, such as 8m, got %s", o.BuildCeiling)
	case !validToolCalls(o.ToolCalls):
		return o, optionError("tool-calls", "must be text, native or auto, got %q", o.ToolCalls)
	case o.Budget.USD < 0:
		return o, optionError("budget-usd", "must be a positive amount of dollars, got %g", o.Budget.USD)
	case o.Budget.Tokens < 0:
		return o, optionError("budget-tokens", "must be a positive number of tokens, got %d", o.Budget.Tokens)
	case o.Price != nil && (o.Price.InputPerMtok < 0 || o.Price.OutputPerMtok < 0):
		return o, optionError("price-input-per-mtok", "prices must not be negative")
	case o.ContextTokens < 1024:
		return o, optionError("context-tokens", "must be at least 1024, got %d", o.ContextTokens)
	case o.Store == nil:
		return o, errors.New("no session store")
	case o.Sandbox == nil:
		return o, errors.New("no sandbox")
	case o.Client == nil:
		return o, errors.New("no model client")
	}
	return o, nil
}
