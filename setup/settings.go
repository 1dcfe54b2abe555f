// Package setup is the one way into the engine: it turns an environment
// plus an entry point's own inputs (CLI flags, Action inputs, the bot's
// configuration) into a ready run: the session options, the sandbox, the
// model client, and the choice between fixing an issue and resolving a pull
// request. Every entry point maps only its own inputs onto it, so a new
// option is one Setting here and reaches the CLI, the Action and the bot.
package setup

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/browser"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/model"
)

// A Setting is one option of a run. It has one name, and from it every
// entry point derives its own spelling: the CLI flag --max-turns, the
// Action input max_turns, the environment variable CORE_SESSION_MAX_TURNS.
// A value the entry point was given wins over the environment, which wins
// over the entry point's default, which wins over the engine's.
type Setting struct {
	Name  string
	Usage string
	// Flag and Input say whether the CLI and the Action take it; the
	// environment variable always works (the bot has no other way).
	Flag, Input bool
	// Secret values are masked and scrubbed wherever core writes.
	Secret bool
	// Bool settings are switches: a bare --dry-run means true.
	Bool bool
	// Multi settings take a list: the flag is repeatable and the input
	// holds one value per line (blank lines and # comments left out).
	Multi bool
	// InputAs, when set, is the Action input's name instead of the
	// setting's (the flag --check repeats; the input is checks).
	InputAs string
	apply   func(r *resolved, v string) error
}

// Env is the environment variable that sets it.
func (s Setting) Env() string {
	return "CORE_SESSION_" + strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
}

// FlagName is the CLI flag, with its dashes.
func (s Setting) FlagName() string { return "--" + s.Name }

// InputName is the Action input (action.yml).
func (s Setting) InputName() string {
	if s.InputAs != "" {
		return s.InputAs
	}
	return strings.ReplaceAll(s.Name, "-", "_")
}

// Setting names that entry points refer to.
const (
	Model         = "model"
	InferenceURL  = "inference-url"
	Discover      = "discover"
	APIKey        = "api-key"
	Verify        = "verify"
	MaxTurns      = "max-turns"
	Timeout       = "timeout"
	TurnTimeout   = "turn-timeout"
	ShellTimeout  = "shell-timeout"
	BuildCeiling  = "build-ceiling"
	ContextTokens = "context-tokens"
	DryRun        = "dry-run"
	Think         = "think"
	Checks        = "check"
	ChecksFromCI  = "checks-from-ci"
	ReadySetting  = "ready"
	AllowWorkflow = "allow-workflow-changes"
	ToolCalls     = "tool-calls"
	IdleTimeout   = "idle-timeout"
	PollInterval  = "poll-interval"
	PricePerMtok  = "price-per-mtok"
	PriceInput    = "price-input-per-mtok"
	PriceOutput   = "price-output-per-mtok"
	BudgetUSD     = "budget-usd"
	BudgetTokens  = "budget-tokens"
	Browser       = "browser"
	BrowserExec   = "browser-exec"
	BrowserTime   = "browser-timeout"
	Headed        = "headed"
	BrowserRemote = "browser-allow-remote"
	SigningKey    = "signing-key"
)

// Settings lists every option of a run, in the order the CLI shows them.
func Settings() []Setting {
	return slices.Concat(modelSettings(), runSettings(), workSettings(), spendSettings(), browserSettings(), mcpSettings(), landingSettings())
}

// modelSettings are the model and its endpoint.
func modelSettings() []Setting {
	return []Setting{
		{Name: Model, Flag: true, Input: true, Usage: "model name sent to the endpoint (default " + session.DefaultModel + ")",
			apply: func(r *resolved, v string) error { r.opts.Inference.Model = v; return nil }},
		{Name: InferenceURL, Flag: true, Input: true, Usage: "OpenAI-compatible base URL (default: the first of CORE_SESSION_DISCOVER, else " + strings.Join(model.DefaultCandidates(), ",") + ", to answer GET /v1/models)",
			apply: func(r *resolved, v string) error { r.opts.Inference.InferenceURL = v; return nil }},
		{Name: Discover, Usage: "comma-separated base URLs probed with GET /v1/models when no inference URL is given (default " + strings.Join(model.DefaultCandidates(), ",") + ")",
			apply: func(r *resolved, v string) error { r.candidates = splitList(v); return nil }},
		{Name: APIKey, Input: true, Secret: true, Usage: "the model endpoint's API key (also read from OPENAI_API_KEY); never written anywhere",
			apply: func(r *resolved, v string) error { r.apiKey = v; return nil }},
	}
}

// runSettings are what a run may run without approval, and for how long.
func runSettings() []Setting {
	return []Setting{
		{Name: Verify, Flag: true, Input: true, Usage: "what run_shell may run without approval: off, build (compile, no workspace code), test (adds the commands that run workspace code, only inside the sandbox: go test, pytest, npm test, cargo test, ...) or auto (build, raised to test where the sandbox works); default off",
			apply: func(r *resolved, v string) error {
				switch r.verify = strings.ToLower(v); r.verify {
				case "auto", "off", "build", "test":
					return nil
				}
				return fmt.Errorf("must be auto, off, build or test, got %q", v)
			}},
		{Name: MaxTurns, Flag: true, Input: true, Usage: fmt.Sprintf("hard cap on model turns; reaching it ends the run as partial (default %d)", session.DefaultMaxTurns),
			apply: intSetting(func(o *session.Options, n int) { o.Limits.MaxTurns = n })},
		{Name: Timeout, Flag: true, Input: true, Usage: fmt.Sprintf("wall-clock cap on the whole run, e.g. 45m (partial; default %s)", session.DefaultTimeout),
			apply: durationSetting(func(o *session.Options, d time.Duration) { o.Limits.Timeout = d })},
		{Name: TurnTimeout, Flag: true, Usage: fmt.Sprintf("cap on one generation; a runaway turn ends the run as partial (default %s)", session.DefaultTurnTimeout),
			apply: durationSetting(func(o *session.Options, d time.Duration) { o.Limits.TurnTimeout = d })},
		{Name: ShellTimeout, Flag: true, Usage: fmt.Sprintf("per-command timeout for run_shell (default %s)", session.DefaultShellTimeout),
			apply: durationSetting(func(o *session.Options, d time.Duration) { o.Verification.ShellTimeout = d })},
		{Name: BuildCeiling, Flag: true, Usage: fmt.Sprintf("what a command that compiles may run in all: while a compiler runs among a run_shell command's or a check's processes, --shell-timeout does not count, up to this ceiling (default %d times --shell-timeout; no more than --shell-timeout counts every moment)", boxagent.BuildCeilingFactor),
			apply: durationSetting(func(o *session.Options, d time.Duration) { o.Verification.BuildCeiling = d })},
		{Name: IdleTimeout, Flag: true, Input: true, Usage: fmt.Sprintf("how long a run that landed waits, idle, for the next message (core session send, a /core comment) before it completes; 0 completes it at done (default: %s for a run a person started at a terminal, with serve or the console's queue (0 with serve --once), %s for one the bot started on its own runner, moved onto %s when a person writes to it; 0 for the Action, whose waiting minutes are billed, and for a CLI run with no terminal)", session.IdleAttended, session.IdleTriggered, session.IdleAttended),
			apply: func(r *resolved, v string) error {
				d, err := time.ParseDuration(strings.TrimSpace(v))
				if v == "0" {
					d, err = 0, nil
				}
				if err != nil || d < 0 {
					return fmt.Errorf("must be a duration such as 20m, or 0 to end at done, got %q", v)
				}
				r.opts.Live.IdleTimeout = d
				return nil
			}},
		{Name: PollInterval, Input: true, Usage: fmt.Sprintf("how often a run the Action started reads new comments on its issue or pull request while it is idle (it also reads them before each turn; default %s)", session.DefaultPollEvery),
			apply: durationSetting(func(o *session.Options, d time.Duration) { o.Live.PollEvery = d })},
		{Name: ContextTokens, Flag: true, Usage: fmt.Sprintf("estimated tokens one request may hold; older tool results are elided beyond it (default %d)", session.DefaultContextTokens),
			apply: intSetting(func(o *session.Options, n int) { o.Inference.ContextTokens = n })},
	}
}

// workSettings are how the run works and what its result is held to.
func workSettings() []Setting {
	return []Setting{
		{Name: DryRun, Flag: true, Input: true, Bool: true, Usage: "run the whole loop, land nothing, print the diff",
			apply: boolSetting(func(o *session.Options, b bool) { o.Landing.DryRun = b })},
		{Name: Think, Flag: true, Bool: true, Usage: "let the model emit its <think> trace (otherwise /no_think is appended to the instruction)",
			apply: boolSetting(func(o *session.Options, b bool) { o.Inference.Think = b })},
		{Name: ToolCalls, Flag: true, Input: true, Usage: "how the model sends actions: text (written in the reply, as the prompt shows; the default), native (OpenAI function calling: tools in the request, tool_calls in the reply) or auto (asks the server once; native when it takes tools, else text)",
			apply: func(r *resolved, v string) error {
				v = strings.ToLower(strings.TrimSpace(v))
				switch v {
				case session.ToolCallsText, session.ToolCallsNative, session.ToolCallsAuto:
				default:
					return fmt.Errorf("must be text, native or auto, got %q", v)
				}
				r.opts.Inference.ToolCalls = v
				return nil
			}},
		{Name: Checks, InputAs: "checks", Flag: true, Input: true, Multi: true, Usage: "a check the result is held to, such as \"go test ./...\" (repeatable; the input takes one per line): the harness runs it confined on the start commit and on the result; the verify tier must allow it",
			apply: func(r *resolved, v string) error { r.opts.Verification.Checks = lines(v); return nil }},
		{Name: ChecksFromCI, Flag: true, Input: true, Bool: true, Usage: "also hold the result to the checks the repository's own CI runs: the commands of the run: steps in .github/workflows that the verify tier can run confined (pytest, npm test, cargo test, go test, ...); the session lists which steps it took and which not, and why (default: off for the CLI, on for the Action)",
			apply: boolSetting(func(o *session.Options, b bool) { o.Verification.ChecksFromCI = b })},
		{Name: ReadySetting, Flag: true, Input: true, Bool: true, Usage: "when every check passes (the contract held), mark the pull request ready for review; otherwise it stays a draft",
			apply: boolSetting(func(o *session.Options, b bool) { o.Landing.Ready = b })},
	}
}

// spendSettings are the price of tokens and the run's budget.
func spendSettings() []Setting {
	return []Setting{
		{Name: PricePerMtok, Flag: true, Input: true, Usage: "what a million tokens cost in dollars: one number for prompt and completion tokens alike, or two (prompt, then completion: \"0.5 1.5\"); the cost is shown everywhere a run is, and \"no price set\" without one (unless the endpoint's /v1/models reports a price)",
			apply: func(r *resolved, v string) error {
				p := strings.Fields(strings.ReplaceAll(v, ",", " "))
				if len(p) < 1 || len(p) > 2 {
					return fmt.Errorf("must be one or two prices in dollars per million tokens (prompt, then completion: \"0.5 1.5\"), got %q", v)
				}
				in, err := priceValue(p[0])
				if err != nil {
					return err
				}
				out := in
				if len(p) == 2 {
					if out, err = priceValue(p[1]); err != nil {
						return err
					}
				}
				r.priceIn, r.priceOut = &in, &out
				return nil
			}},
		{Name: PriceInput, Flag: true, Input: true, Usage: "what a million prompt tokens cost in dollars (with --price-output-per-mtok; overrides price-per-mtok)",
			apply: func(r *resolved, v string) error {
				f, err := priceValue(v)
				r.priceIn = &f
				return err
			}},
		{Name: PriceOutput, Flag: true, Input: true, Usage: "what a million completion tokens cost in dollars (with --price-input-per-mtok; overrides price-per-mtok)",
			apply: func(r *resolved, v string) error {
				f, err := priceValue(v)
				r.priceOut = &f
				return err
			}},
		{Name: BudgetUSD, Flag: true, Input: true, Usage: fmt.Sprintf("the most the session may spend, in dollars (needs a price); each request asks for a reply of what the budget leaves after what was spent and the request (max_tokens, at most %d); when that is under %d tokens core sends nothing more, lands the work as a draft marked [budget exhausted] and ends budget_exhausted; a budget too small for the first request is refused before the session starts, naming the smallest that fits; on resume, a top-up added to it (default none)", budget.CompletionAllowance, budget.ReplyFloor),
			apply: func(r *resolved, v string) error {
				f, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(v), "$"), 64)
				if err != nil || f <= 0 {
					return fmt.Errorf("must be a positive amount of dollars such as 2.50, got %q", v)
				}
				r.opts.Limits.Budget.USD = f
				return nil
			}},
		{Name: BudgetTokens, Flag: true, Input: true, Usage: "the most tokens (prompt and completion) the session may spend, checked before each request like --budget-usd; on resume, a top-up added to it (default none)",
			apply: intSetting(func(o *session.Options, n int) { o.Limits.Budget.Tokens = n })},
	}
}

// browserSettings are the browser the model may use (--browser).
func browserSettings() []Setting {
	return []Setting{
		{Name: Browser, Flag: true, Input: true, Bool: true, Usage: "give the model a headless Chromium to look at what it built: browser_navigate, browser_click, browser_type, browser_read, browser_screenshot and browser_console, on pages it serves on localhost (a dev server it starts in the background); a person at a terminal approves each action, an unattended run uses it alone; screenshots and the console log are kept with the session's files",
			apply: boolSetting(func(o *session.Options, b bool) { o.Browser.On = b })},
		{Name: BrowserExec, Flag: true, Input: true, Usage: "the Chrome or Chromium binary for --browser, a path or a name on PATH (default: the first of chromium, chromium-browser, google-chrome found on PATH)",
			apply: func(r *resolved, v string) error { r.browserExec = v; return nil }},
		{Name: BrowserTime, Flag: true, Input: true, Usage: fmt.Sprintf("how long one browser action may take before the model is told it timed out (default %s)", browser.DefaultTimeout),
			apply: durationSetting(func(o *session.Options, d time.Duration) { o.Browser.Timeout = d })},
		{Name: Headed, Flag: true, Bool: true, Usage: "show the browser's window (--browser) instead of running it headless; only for a run a person attends at a terminal",
			apply: boolSetting(func(o *session.Options, b bool) { o.Browser.Headed = b })},
		{Name: BrowserRemote, Flag: true, Input: true, Bool: true, Usage: "let the browser load pages from hosts other than localhost, 127.0.0.1 and [::1]; every navigation then needs a person's approval, so an unattended run declines them all",
			apply: boolSetting(func(o *session.Options, b bool) { o.Browser.AllowRemote = b })},
	}
}

// landingSettings are what the run may land.
func landingSettings() []Setting {
	return []Setting{
		{Name: AllowWorkflow, Flag: true, Input: true, Bool: true, Usage: "let the session write and land workflows, files under .github/actions, and the action.yml of any action a workflow uses locally (they run with the repository's secrets and the workflow's token on the next push); recorded, so resume keeps it",
			apply: boolSetting(func(o *session.Options, b bool) { o.Landing.AllowWorkflowChanges = b })},
		{Name: SigningKey, Flag: true, Input: true, Secret: true, Usage: "sign core's commits with this SSH or OpenPGP private key (the flag takes its file; the Action's input, a secret, its text) and push them with git; without it they are made through GitHub's Git Data API, which signs them for an App's or the Action's token. A key with a passphrase is refused: the key is checked by signing before the run starts",
			apply: func(r *resolved, v string) error {
				k, err := signingKey(v)
				r.opts.Landing.SigningKey = k
				return err
			}},
	}
}

// signingKey reads --signing-key: the key's text, or the file holding it.
func signingKey(v string) (land.SigningKey, error) {
	text := v
	if !strings.HasPrefix(strings.TrimSpace(v), "-----BEGIN") {
		b, err := os.ReadFile(strings.TrimSpace(v))
		if err != nil {
			return land.SigningKey{}, fmt.Errorf("read the signing key: %w", err)
		}
		text = string(b)
	}
	return land.ParseSigningKey(text)
}

// Lookup finds a setting by name.
func Lookup(name string) (Setting, bool) {
	for _, s := range Settings() {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}

func priceValue(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(v), "$"), 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("must be a price in dollars per million tokens such as 0.5, got %q", v)
	}
	return f, nil
}

// price is the price the settings gave, or nil; one half alone is an
// error.
func (r *resolved) price() (*budget.Price, error) {
	switch {
	case r.priceIn == nil && r.priceOut == nil:
		return nil, nil
	case r.priceIn == nil:
		return nil, &session.ConfigError{Option: PriceInput, Err: errors.New("is needed too: a price for completion tokens was set, none for prompt tokens")}
	case r.priceOut == nil:
		return nil, &session.ConfigError{Option: PriceOutput, Err: errors.New("is needed too: a price for prompt tokens was set, none for completion tokens")}
	}
	return &budget.Price{InputPerMtok: *r.priceIn, OutputPerMtok: *r.priceOut, Source: budget.PriceFromSettings}, nil
}

func intSetting(set func(*session.Options, int)) func(*resolved, string) error {
	return func(r *resolved, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return fmt.Errorf("must be a positive number, got %q", v)
		}
		set(&r.opts, n)
		return nil
	}
}

func durationSetting(set func(*session.Options, time.Duration)) func(*resolved, string) error {
	return func(r *resolved, v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			return fmt.Errorf("must be a duration such as 45m or 2h, got %q", v)
		}
		set(&r.opts, d)
		return nil
	}
}

func boolSetting(set func(*session.Options, bool)) func(*resolved, string) error {
	return func(r *resolved, v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("must be true or false, got %q", v)
		}
		set(&r.opts, b)
		return nil
	}
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// lines splits a list setting: one value per line, blank lines and lines
// starting with # left out.
func lines(v string) []string {
	var out []string
	for _, l := range strings.Split(v, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}
