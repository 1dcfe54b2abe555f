package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/browser"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/instructions"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/mcptool"
	"github.com/coreagent/core/session/prompt"
	"github.com/coreagent/core/session/protocol"
	"github.com/coreagent/core/session/receipt"
	"github.com/coreagent/core/session/review"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
	"github.com/coreagent/core/session/transcript"
)

// ConfigError is a problem with the options, found before or while a
// session starts: the user can fix it. Option names the setting at fault
// ("base", "max-turns"; empty when no single one is), so that each entry
// point can word it for its users: the CLI says --base, the Action the
// base input.
type ConfigError struct {
	Option string
	Err    error
}

func (e *ConfigError) Error() string {
	if e.Option == "" {
		return e.Err.Error()
	}
	return e.Option + ": " + e.Err.Error()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// optionError is a ConfigError about one option.
func optionError(option, format string, args ...any) error {
	return &ConfigError{Option: option, Err: fmt.Errorf(format, args...)}
}

// configError makes err a ConfigError, keeping the option of one that is.
func configError(err error) error {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return err
	}
	return &ConfigError{Err: err}
}

// Run starts a new session: it clones the repository into a workspace,
// drives the model until it calls done or a limit is hit, lands the result
// and writes the report. The report comes back whatever the ending; the
// error is set when the session could not even start.
func Run(ctx context.Context, opts Options) (*Report, error) {
	rep, err := runNew(ctx, opts)
	return rep, scrub.New(opts.Services.Secrets...).Error(err)
}

func runNew(ctx context.Context, opts Options) (*Report, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, configError(err)
	}
	checks, err := preflight(ctx, opts)
	if err != nil {
		return nil, err
	}
	org, err := openOrigin(ctx, opts)
	if err != nil {
		return nil, StartError(err)
	}
	now := opts.Services.Now()
	id := opts.Goal.ID
	if id == "" {
		id = NewID(now)
	} else if !ValidID(id) {
		return nil, &ConfigError{Err: fmt.Errorf("%q is not a valid session id", id)}
	}
	t, err := org.target(ctx, opts, id)
	if err != nil {
		return nil, StartError(err)
	}
	instruction, err := instructionOf(ctx, opts, org, now)
	if err != nil {
		return nil, err
	}
	mode, err := resolveToolCalls(ctx, opts)
	if err != nil {
		return nil, configError(err)
	}
	if err := checkFirstRequest(opts, checks, instruction, mode); err != nil {
		return nil, err
	}
	rec := newRecord(opts, org, t, id, instruction, checks, mode, now)
	rec.Workspace = opts.Services.Store.WorkspaceDir(rec.ID)
	if err := opts.Services.Store.create(rec, scrub.New(opts.Services.Secrets...)); err != nil {
		return nil, err
	}
	s, ctx, err := start(ctx, opts, rec, org)
	if err != nil {
		return nil, err
	}
	defer s.unlock()
	// First, before the first turn: how to follow the run from elsewhere.
	fmt.Fprintf(opts.Live.Progress, "session %s: follow it from elsewhere with core session watch %s\n", id, id)
	if opts.Landing.RunURL != "" {
		fmt.Fprintf(opts.Live.Progress, "its page: %s\n", opts.Landing.RunURL)
	}
	if t.Onto != "" {
		fmt.Fprintf(opts.Live.Progress, "starting from HEAD %s plus %d uncommitted %s (kept as %s; --clean leaves them out)\n",
			clip.Hash(t.Onto), t.Uncommitted, plural(t.Uncommitted, "change", "changes"), land.InputsRef(id))
	}
	if err := org.clone(ctx, rec.Workspace, t); err != nil {
		if ctx.Err() != nil {
			return s.end(state.Cancelled, "", s.cancelReason(ctx)), nil
		}
		return s.end(state.Failed, state.FailInfrastructure, err), nil
	}
	if opts.Goal.Review != nil {
		if err := s.startReview(ctx); err != nil {
			return s.end(state.Failed, FailureKindOf(err), err), nil
		}
	}
	return s.drive(ctx, instruction, true)
}

// newRecord is a new session's record, pending, before anything of it
// exists on disk: what it was asked, where it starts and lands, and how
// it runs.
func newRecord(opts Options, org origin, t land.Target, id, instruction string, checks []contract.Check, mode string, now time.Time) *Record {
	return &Record{
		ID: id,
		RecordTask: RecordTask{
			Repo:        org.name(),
			Base:        t.Base,
			StartCommit: t.SHA,
			Branch:      t.Branch,
			PullRequest: t.Pull,
			Issue:       opts.Goal.Issue,
			Prompt:      opts.Goal.Prompt,
			Goal:        goalOf(opts.Goal.Prompt, instruction),
			Kind:        kindOf(opts.Goal),
			LandOnto:    t.Onto,
			Uncommitted: t.Uncommitted,
		},
		RecordLife: RecordLife{Status: state.Pending},
		RecordSetup: RecordSetup{ToolCalls: mode, Model: opts.Inference.Model, InferenceURL: opts.Inference.InferenceURL,
			Verify: opts.Verification.Verify, Checks: checks},
		RecordTimes: RecordTimes{CreatedAt: now, UpdatedAt: now},

		AllowWorkflowChanges: opts.Landing.AllowWorkflowChanges,
		Browser:              browserRecord(opts.Browser),
	}
}

// preflight checks what a new run is asked before a record or a clone
// exists: a goal, the budget's price, the browser's box, a tier the
// sandbox can honour; and returns the user's checks.
func preflight(ctx context.Context, opts Options) ([]contract.Check, error) {
	if strings.TrimSpace(opts.Goal.Prompt) == "" && opts.Goal.Issue == 0 {
		return nil, &ConfigError{Option: "prompt", Err: errors.New("a goal is required: give a prompt or an issue")}
	}
	if err := checkBudgetPrice(opts, nil); err != nil {
		return nil, err
	}
	if err := CheckBrowserBox(ctx, opts.Browser, opts.Services.Sandbox); err != nil {
		return nil, err
	}
	// Pre-flight: a tier the sandbox cannot honour fails before a record
	// or a clone exists.
	if err := opts.Services.Sandbox.Require(ctx, opts.Verification.Verify); err != nil {
		return nil, configError(err)
	}
	checks, err := contract.UserChecks(opts.Verification.Checks, opts.Verification.Verify)
	if err != nil {
		return nil, configError(err)
	}
	if k := opts.Landing.SigningKey; k.Set() {
		// A key that cannot sign is said now, not when the work lands.
		if err := k.Check(ctx); err != nil {
			return nil, &ConfigError{Option: "signing-key", Err: err}
		}
	}
	return checks, nil
}

// instructionOf is what a new run is asked to do: the prompt, then the
// issue's text as it stood at opts.Goal.IssueBefore (or now).
func instructionOf(ctx context.Context, opts Options, org origin, now time.Time) (string, error) {
	instruction := strings.TrimSpace(opts.Goal.Prompt)
	if opts.Goal.Issue != 0 {
		text, err := org.issue(ctx, opts.Goal.Issue, cmp.Or(opts.Goal.IssueBefore, now))
		if err != nil {
			return "", StartError(err)
		}
		if instruction != "" {
			instruction += "\n\n"
		}
		instruction += text
	}
	return instruction, nil
}

// Resume continues a persisted session with a new instruction: the
// transcript is replayed verbatim, the workspace reused, the limits apply
// afresh.
func Resume(ctx context.Context, id, instruction string, opts Options) (*Report, error) {
	rep, err := resume(ctx, id, instruction, opts)
	return rep, scrub.New(opts.Services.Secrets...).Error(err)
}

func resume(ctx context.Context, id, instruction string, opts Options) (*Report, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, configError(err)
	}
	if strings.TrimSpace(instruction) == "" {
		return nil, &ConfigError{Option: "instruction", Err: errors.New("resume needs an instruction: what to do next")}
	}
	rec, err := opts.Services.Store.Load(id)
	if err != nil {
		return nil, configError(err)
	}
	if rec.Kind == review.Kind {
		return nil, &ConfigError{Err: fmt.Errorf("session %s is a review: a review is not resumed; run core review again", id)}
	}
	if err := checkBudgetPrice(opts, rec); err != nil {
		return nil, err
	}
	if err := CheckBrowserBox(ctx, opts.Browser, opts.Services.Sandbox); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(rec.Workspace, ".git")); err != nil {
		return nil, &ConfigError{Err: fmt.Errorf("session %s cannot be resumed: its workspace %s is gone", id, rec.Workspace)}
	}
	opts.Goal.Repo = rec.Repo
	org, err := openOrigin(ctx, opts)
	if err != nil {
		return nil, StartError(err)
	}
	if rec.Status.Live() {
		// Load said it is live, so a process holds it.
		return nil, &ConfigError{Err: fmt.Errorf("session %s is running in another process", id)}
	}
	// Options that belong to the session come from its record; allowing
	// workflow changes, once given, stays.
	opts.Verification.Verify, opts.Inference.Model = rec.Verify, rec.Model
	more, err := contract.UserChecks(opts.Verification.Checks, rec.Verify)
	if err != nil {
		return nil, configError(err)
	}
	for _, c := range more {
		rec.Checks = contract.AddCheck(rec.Checks, c)
	}
	rec.AllowWorkflowChanges = rec.AllowWorkflowChanges || opts.Landing.AllowWorkflowChanges
	opts.Landing.AllowWorkflowChanges = rec.AllowWorkflowChanges
	// The browser is the one this run has: the entry point gave the
	// recorded one unless told otherwise (core session resume does).
	rec.Browser = browserRecord(opts.Browser)
	s, ctx, err := start(ctx, opts, rec, org)
	if err != nil {
		return nil, err
	}
	defer s.unlock()
	return s.drive(ctx, instruction, false)
}

// run is one live run of a session: the session it drives and what it
// keeps by concern, each group embedded so its fields read as the run's.
type run struct {
	opts   Options
	rec    *Record
	origin origin
	git    gitRunner
	unlock func()
	report *Report
	// scrubber removes the run's secrets from everything that leaves
	// core: nil when there are none.
	scrubber *scrub.Scrubber
	runModel
	runWorkspace
	runResult
	runLive
}

// runModel is the run's conversation with the model.
type runModel struct {
	tr *transcript.File
	// window builds each request within the context budget.
	window *budget.ContextWindow
	// spend is what the run knows of its spending (spend_run.go).
	spend spend
}

// runWorkspace is what acts in the run's workspace.
type runWorkspace struct {
	tools *tools.Set
	env   *tools.Env
	// warmup is the build's background warm-up until its end is told;
	// warmCancel stops it.
	warmup     *sandbox.Warmup
	warmCancel context.CancelFunc
	// project is what the run found at the workspace's top (languages.go);
	// nil when it could not look.
	project *lang.Project
	// browser is the run's browser (--browser), closed when the run ends.
	browser *browser.Browser
	// mcp are the run's MCP servers, stopped when the run ends (mcp.go).
	mcp *mcptool.Servers
}

// runResult is what the run's result is held to.
type runResult struct {
	checks *contract.Checker
	// tree is the workspace's tree frozen at done: what the result checks
	// ran on and what lands (tree.go).
	tree string
	// ownRuns are the model's last run of each verification command
	// (contract/own_run.go).
	ownRuns contract.OwnRuns
	// receipt is the contract's receipt and its hash, once made
	// (receipt.go); end writes it.
	receipt     []byte
	receiptHash string
	// priorReceipt is, for core session land, the receipt of the run
	// whose contract lands; outputsGone says that contract was read back
	// from report.json, which holds none of its checks' outputs.
	priorReceipt *receipt.Receipt
	outputsGone  bool
	// review is, in a review, its head and what it found (review_run.go);
	// nil for any other run.
	review *reviewRun
}

// runLive is how people see and reach the run while it lives.
type runLive struct {
	// events is the run's event log; ctl how people reach the run.
	events *live.EventLog
	ctl    *live.Control
	// unlanded is set when an interrupt left work that has not landed.
	unlanded bool
	// input is the terminal's lines, once the run reads them (lines).
	input *prompt.Lines
}

// scrub removes every secret core knows of from text.
func (s *run) scrub(text string) string { return s.scrubber.String(text) }

// start locks the session, moves it to starting and opens its
// transcript, its event log and its socket. From here on, what the run
// prints, asks, writes and hands to git passes through its scrubber. The
// context it returns is the run's: a person's stop cancels it.
func start(ctx context.Context, opts Options, rec *Record, org origin) (*run, context.Context, error) {
	unlock, err := opts.Services.Store.lockWait(ctx, rec.ID)
	if err != nil {
		return nil, ctx, configError(err)
	}
	sc := newScrubber(opts)
	// What a person's terminal shows carries no escape sequence of the
	// model's, a command's or a page's: shown, not obeyed.
	opts.Live.Progress, opts.Services.Output = scrub.TerminalWriter(sc.Writer(opts.Live.Progress)), scrub.TerminalWriter(sc.Writer(opts.Services.Output))
	opts.Services.Approver = scrubbingApprover{a: opts.Services.Approver, scrub: sc}
	s := &run{opts: opts, rec: rec, origin: org, git: gitRunner{env: opts.Services.GitEnv, scrub: sc}, unlock: unlock, runWorkspace: runWorkspace{tools: toolsFor(rec)}, scrubber: sc, runLive: runLive{ctl: opts.Live.Control}}
	if s.ctl == nil {
		s.ctl = live.NewControl()
	}
	s.report = &Report{ID: rec.ID, Repo: rec.Repo,
		ReportLanding:      ReportLanding{DryRun: opts.Landing.DryRun, RunURL: opts.Landing.RunURL},
		ReportVerification: ReportVerification{Verify: string(rec.Verify)},
		ReportRun:          ReportRun{StartedAt: opts.Services.Now(), Steps: []Step{}, Instructions: rec.Instructions},
		ReportGoal:         ReportGoal{Goal: cmp.Or(rec.Goal, goalOf(rec.Prompt, "")), Kind: rec.Kind}}
	s.startSpend(rec.Status != state.Pending)
	dir := opts.Services.Store.Dir(rec.ID)
	if s.events, err = live.OpenEvents(filepath.Join(dir, live.EventsFile), sc, opts.Services.Now); err != nil {
		unlock()
		return nil, ctx, err
	}
	endObserve := s.observe(ctx)
	ctx, stop := context.WithCancelCause(ctx)
	s.ctl.Attach(stop)
	closeSocket, err := live.Serve(ctx, dir, s.ctl)
	if err != nil {
		stop(nil)
		s.events.Close()
		endObserve()
		unlock()
		return nil, ctx, err
	}
	s.unlock = func() {
		// The run's boxes go with it: every background command the model
		// started, every process left in them.
		_ = opts.Services.Sandbox.Close()
		closeSocket()
		stop(nil)
		s.events.Close()
		endObserve()
		unlock()
	}
	if err := s.moveTo(state.Starting); err != nil {
		s.unlock()
		return nil, ctx, err
	}
	tr, err := transcript.Open(filepath.Join(dir, TranscriptFile), sc)
	if err != nil {
		s.end(state.Failed, state.FailInfrastructure, err)
		s.unlock()
		return nil, ctx, err
	}
	s.tr = tr
	prev := s.unlock
	s.unlock = func() { tr.Close(); prev() }
	return s, ctx, nil
}

// observe hands the run's events to its Observer (OpenTelemetry), if
// any; the function it returns ends the watch once the log is closed.
func (s *run) observe(ctx context.Context) func() {
	o := s.opts.Live.Observer
	if o == nil {
		return func() {}
	}
	listen, end := o.Observe(ctx, live.RunInfo{Session: s.rec.ID, Repository: s.rec.Repo, Kind: cmp.Or(s.rec.Kind, "session"),
		Resumed: s.rec.Status != state.Pending})
	s.events.Listen(listen)
	if end == nil {
		return func() {}
	}
	return end
}

// prepare checks the sandbox against the tier and builds the tool
// environment.
func (s *run) prepare(ctx context.Context) error {
	if err := s.opts.Services.Sandbox.Require(ctx, s.rec.Verify); err != nil {
		return &ConfigError{Option: "verify", Err: err}
	}
	usable, err := s.opts.Services.Sandbox.Usable(ctx)
	if err != nil {
		return configError(err)
	}
	s.rec.Sandboxed = usable
	s.report.Sandboxed = usable
	s.detectLanguages(ctx)
	ws, err := tools.NewWorkspace(s.rec.Workspace)
	if err != nil {
		return err
	}
	s.env = &tools.Env{
		Workspace: ws,
		Tier:      s.rec.Verify,
		Runner:    tools.NewEventRunner(s.opts.Services.Sandbox, s.events, s.opts.Services.Now, func() int { return s.rec.Turns }),
		Approver:  s.opts.Services.Approver,
		Commands: tools.Commands{ShellTimeout: s.opts.Verification.ShellTimeout, BuildCeiling: s.opts.Verification.BuildCeiling,
			Echo: s.opts.Live.Progress},
		Observations: tools.Observations{OutputLimit: budget.ObservationLimit(s.opts.Inference.ContextTokens), Scrubber: s.scrubber},
		// The tools refuse to write workflows unless the user allowed it;
		// landing checks what other commands wrote (checkLanding).
		Workflows: tools.Workflows{AllowWorkflowChanges: s.rec.AllowWorkflowChanges},
	}
	s.window = budget.NewContextWindow(s.opts.Inference.ContextTokens)
	if f, ok := s.origin.(tools.IssueFiler); ok {
		s.env.Issues = scrubbingFiler{f: f, scrub: s.scrub}
	}
	s.openMCP(ctx)
	return s.openBrowser(ctx)
}

// scrubbingFiler files issues with every secret removed from them.
type scrubbingFiler struct {
	f     tools.IssueFiler
	scrub func(string) string
}

func (sf scrubbingFiler) FileIssue(ctx context.Context, title, body string) (string, error) {
	return sf.f.FileIssue(ctx, sf.scrub(title), sf.scrub(body))
}

// verifyRule tells the model what run_shell runs unattended at the tier in
// the project found (every ecosystem's commands when nil or none found),
// derived from the sandbox policy.
func verifyRule(tier lang.Tier, p *lang.Project) string {
	allowed := lang.AllowedIn(tier, p)
	if len(allowed) == 0 {
		return "Every run_shell command needs a human's approval and may be declined."
	}
	where := ""
	var names []string
	for _, a := range allowed {
		names = append(names, a.Command)
		if a.Sandboxed {
			where = ", in a sandbox without network"
		}
	}
	return fmt.Sprintf("run_shell runs these without approval%s, as plain commands (no shell syntax): %s. Anything else needs a human's approval and may be declined.", where, strings.Join(names, ", "))
}

// contractRule tells the model that the harness checks its work itself.
func contractRule(tier lang.Tier, checks []contract.Check) string {
	if tier == lang.TierOff {
		return ""
	}
	rule := " After done, the harness itself runs every such command you ran, and the user's checks, on the start commit and on your result: a check that passed before and fails after marks your work as failing."
	var user, ci []string
	for _, c := range checks {
		switch c.Source {
		case contract.SourceUser:
			user = append(user, c.String())
		case contract.SourceCI:
			ci = append(ci, c.String())
		}
	}
	if len(user) > 0 {
		rule += " The user's checks: " + strings.Join(user, "; ") + "."
	}
	if len(ci) > 0 {
		rule += " The checks the repository's CI runs: " + strings.Join(ci, "; ") + "."
	}
	return rule
}

// systemPrompt builds the session's system prompt, with the repository's
// instructions for agents from the start commit.
func (s *run) systemPrompt(ctx context.Context) (string, error) {
	text, used, err := instructions.Read(ctx, s.git.run, s.git.env, s.rec.Workspace, s.rec.StartCommit)
	if err != nil {
		return "", err
	}
	s.rec.Instructions, s.report.Instructions = used, used
	return protocol.SystemPrompt(protocol.PromptConfig{
		ToolDocs:     s.tools.Doc(),
		Verify:       verifyRule(s.rec.Verify, s.project) + contractRule(s.rec.Verify, s.rec.Checks),
		Native:       s.native(),
		Instructions: s.scrub(text),
		Rules:        review.Rules(s.rec.Kind),
	}), nil
}

// newScrubber is the run's scrubber: the options' secrets and the GitHub
// client's, which grow as its token source hands out fresh tokens during
// the run (the scrubber asks it at each use).
func newScrubber(opts Options) *scrub.Scrubber {
	if opts.Services.GitHub != nil {
		return scrub.Dynamic(opts.Services.GitHub.Secrets, opts.Services.Secrets...)
	}
	return scrub.New(opts.Services.Secrets...)
}

// scrubbingApprover shows the human the gated action with every secret
// removed: the terminal is an edge too.
type scrubbingApprover struct {
	a     tools.Approver
	scrub *scrub.Scrubber
}

func (sa scrubbingApprover) Approve(ctx context.Context, action string) (bool, error) {
	return sa.a.Approve(ctx, sa.scrub.String(action))
}

// Attended passes on whether the wrapped approver asks a person.
func (sa scrubbingApprover) Attended() bool { return tools.Attended(sa.a) }

// scrubArgs scrubs every string in a parsed action's arguments, in place:
// a secret the reply spelled in escapes (JSON's \u0067) decodes only here.
func scrubArgs(args map[string]any, scrub func(string) string) {
	for k, v := range args {
		args[k] = scrubValue(v, scrub)
	}
}

func scrubValue(v any, scrub func(string) string) any {
	switch v := v.(type) {
	case string:
		return scrub(v)
	case map[string]any:
		scrubArgs(v, scrub)
	case []any:
		for i := range v {
			v[i] = scrubValue(v[i], scrub)
		}
	}
	return v
}
