package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/coreagent/core/forger"
	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
	"github.com/coreagent/core/setup"
	"github.com/coreagent/core/telemetry"
)

// Env is what the Action reads and writes of the world.
type Env struct {
	Getenv func(string) string
	// Stdout receives the workflow commands (annotations, masks).
	Stdout io.Writer
	// Stderr receives the progress of the session.
	Stderr io.Writer
	// HTTPClient talks to GitHub and the model; nil is the default.
	HTTPClient *http.Client
	// Self is core's executable (setup.Env.Self).
	Self string
	// Observer watches the run's events (setup.Env.Observer).
	Observer live.Observer
}

// ErrFailed is returned when the session failed: the annotations already
// said why, and the step must fail.
var ErrFailed = errors.New("the session failed")

// Run is the Action: `core action`.
func Run(ctx context.Context, env Env) error {
	a := githubactions.New(githubactions.WithGetenv(env.Getenv), githubactions.WithWriter(env.Stdout))
	in, err := readInputs(a)
	if err != nil {
		a.Errorf("%v", err)
		return err
	}
	if in.GitHubToken != "" {
		a.AddMask(in.GitHubToken)
	}
	if in.RunID != "" {
		// The bot's run: its trace is the one the bot's dispatch links to.
		ctx = telemetry.WithRunKey(ctx, in.RunID)
	}
	for _, s := range setup.Settings() {
		if v := setup.Value(setupEnv(env), in.Settings, s.Name); s.Secret && v != "" {
			// A key is many lines: the runner masks one line per mask.
			for _, line := range strings.Split(v, "\n") {
				if line = strings.TrimSpace(line); line != "" {
					a.AddMask(line)
				}
			}
		}
	}
	ghctx, err := a.Context()
	if err != nil {
		return fmt.Errorf("read the Actions context: %w", err)
	}
	ev, err := readEvent(ghctx.EventPath)
	if err != nil {
		return err
	}
	t, err := detect(ghctx.EventName, ev, in)
	if err != nil {
		a.Errorf("%v", err)
		return err
	}
	if t.mode == "" {
		a.Noticef("core: nothing to do: %s", t.nothing)
		return nil
	}
	if in.GitHubToken == "" {
		err := errors.New("no GitHub token: set the github_token input (its default is the workflow's token)")
		a.Errorf("%v", err)
		return err
	}
	owner, repo := ghctx.Repo()
	client, err := gh.New(gh.Credentials{Token: in.GitHubToken, APIURL: ghctx.APIURL}, env.HTTPClient)
	if err != nil {
		return err
	}
	r := &runner{a: a, env: env, in: in, ghctx: ghctx, client: client, owner: owner, repo: repo, t: t, every: progressEvery}
	return r.run(ctx)
}

// runner is one run of the Action.
type runner struct {
	a           *githubactions.Action
	env         Env
	in          Inputs
	ghctx       *githubactions.GitHubContext
	client      *gh.Client
	owner, repo string
	t           trigger
	status      *statusComment
	store       *session.Store // once the options are built
	secrets     []string       // the run's, once the options are built
	// every is how often, at most, progress edits the status comment.
	every time.Duration
}

func (r *runner) run(ctx context.Context) error {
	if r.t.needsAuthorization() {
		if reason, err := r.authorize(ctx); err != nil {
			return err
		} else if reason != "" {
			r.a.Warningf("core: refused: %s", reason)
			// A bot gets no reply: two bots answering each other never end.
			if r.t.number != 0 && !gh.IsBot(r.t.actor.Login, r.t.actor.Type) {
				if _, _, err := r.client.CreateComment(ctx, r.owner, r.repo, r.t.number, "core: "+reason); err != nil {
					return err
				}
			}
			return nil
		}
	}
	id := session.NewID(time.Now())
	if r.t.commentID != 0 {
		if err := r.client.AddReaction(ctx, r.owner, r.repo, r.t.commentID, "eyes"); err != nil {
			r.a.Warningf("core: could not react to the comment: %v", err)
		}
	}
	if r.t.number != 0 {
		r.status = &statusComment{client: r.client, owner: r.owner, repo: r.repo, number: r.t.number, runID: r.runID(id), runURL: r.runURL(), id: r.in.StatusCommentID, workflowRun: r.ghctx.RunID}
		if err := r.status.post(ctx, fmt.Sprintf("%s: core is on it: %s session `%s`.", state.Starting.Word(), r.t.mode, id)); err != nil {
			return err
		}
	}
	if r.t.mode == ModeFix && r.t.commentID != 0 && r.in.Label != "" {
		// Asked by a comment: the label may never have been made.
		r.warnMissingLabel(ctx)
	}
	options := func() (session.Options, error) {
		opts, err := r.options(ctx, id)
		if err == nil && r.status != nil {
			opts.Live.OnStep = r.progress(ctx, id)
			opts.Live.OnState = r.headline(ctx, id, opts.Live.IdleTimeout)
		}
		return opts, err
	}
	var rep *session.Report
	var err error
	if r.t.mode == ModeForge {
		// The forger decides whether there is work before anything needs a
		// model server.
		var res forger.Result
		res, err = forger.Run(ctx, forger.Config{Client: r.client, Owner: r.owner, Repo: r.repo, Label: r.in.ForgeLabel, RunID: r.runID(id), Getenv: r.env.Getenv}, options)
		if err == nil && res.Report == nil {
			r.a.Noticef("core: %s", res.Reason)
			return nil
		}
		rep = res.Report
	} else {
		opts, oerr := options()
		if oerr != nil {
			return r.fail(ctx, oerr)
		}
		rep, err = setup.Run(ctx, setup.Work{Kind: r.t.mode, Client: r.client, Owner: r.owner, Repo: r.repo, Number: r.t.number, Instruction: r.t.instruction}, opts)
	}
	if err != nil {
		return r.fail(ctx, err)
	}
	return r.finish(ctx, rep)
}

// progressEvery is how often, at most, the status comment is edited while a
// session runs.
const progressEvery = 30 * time.Second

// progress edits the status comment as the session goes, at most every
// progressEvery, so the person who asked sees it move.
func (r *runner) progress(ctx context.Context, id string) func(session.Step, int) {
	last := time.Now()
	return func(st session.Step, maxTurns int) {
		if time.Since(last) < r.every {
			return
		}
		last = time.Now()
		text := fmt.Sprintf("%s: core is on it: %s session `%s`, turn %d of at most %d (%s %s).", state.Active.Word(), r.t.mode, id, st.Turn, maxTurns, st.Tool, st.Target)
		if err := r.status.post(ctx, text); err != nil {
			r.a.Warningf("core: could not update the status comment: %v", err)
		}
	}
}

// headline keeps the status comment's headline current as the run goes
// idle (it landed and waits for its starter) and wakes again.
func (r *runner) headline(ctx context.Context, id string, idle time.Duration) func(state.Status, string) {
	return func(st state.Status, prURL string) {
		if idle <= 0 {
			return // it ends at done: the result is the headline
		}
		var text string
		starter := r.starter()
		switch {
		case st == state.Idle && prURL != "":
			text = fmt.Sprintf("%s: core landed its work: %s. It waits %s for more: @%s can comment `/core <message>` (session `%s`).", st.Word(), prURL, idle, starter, id)
		case st == state.Idle:
			text = fmt.Sprintf("%s: @%s can comment `/core <message>` within %s (session `%s`).", st.Word(), starter, idle, id)
		case st == state.Active && prURL != "":
			text = fmt.Sprintf("%s: core is on it again, %s session `%s`, for @%s's message.", st.Word(), r.t.mode, id, starter)
		default:
			return
		}
		if err := r.status.post(ctx, text); err != nil {
			r.a.Warningf("core: could not update the status comment: %v", err)
		}
	}
}

// runID names this run for the status marker: the workflow run, the same
// across re-run attempts.
func (r *runner) runID(sessionID string) string {
	if r.in.RunID != "" {
		return r.in.RunID // the bot's
	}
	if r.ghctx.RunID != 0 {
		return "gha-" + strconv.FormatInt(r.ghctx.RunID, 10)
	}
	return sessionID
}

func (r *runner) runURL() string {
	if r.ghctx.ServerURL == "" || r.ghctx.RunID == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s/actions/runs/%d", r.ghctx.ServerURL, r.ghctx.Repository, r.ghctx.RunID)
}

// authorize checks the person who asked: no bots, and write, maintain or
// admin on the repository. It returns why it refuses, or "".
func (r *runner) authorize(ctx context.Context) (string, error) {
	login := r.t.actor.Login
	if gh.IsBot(login, r.t.actor.Type) {
		if r.in.allowedBot(login) {
			return "", nil // the workflow named it in allowed_bots
		}
		return fmt.Sprintf("%s is a bot account; core takes commands from people only (a workflow can allow bots by name with the allowed_bots input).", login), nil
	}
	perm, err := r.client.Permission(ctx, r.owner, r.repo, login)
	if err != nil {
		return "", err
	}
	if !gh.MayAct(perm, false, gh.ActStart) {
		return fmt.Sprintf("@%s, only people with write, maintain or admin permission on %s/%s can ask core to work (your permission: %s).", login, r.owner, r.repo, perm), nil
	}
	return "", nil
}

// setupEnv is the Action's environment for setup: verify auto, the checks
// the repository's CI runs taken (checks_from_ci), and state
// under HOME, which the runner mounts from the host at /github/home, so the
// Docker backend can share its workspaces with sibling containers
// (RUNNER_TEMP keeps its host path and is not mounted inside a Docker
// action; it is the fallback without HOME), unless CORE_HOME says otherwise;
// the sandbox's Go caches are core's own (CORE_SANDBOX_USER_CACHES=off)
// unless the workflow says otherwise; the sandbox_image input names the
// image of the Docker backend's sibling containers (CORE_SANDBOX_IMAGE),
// toolchain_images those of the other languages
// (CORE_SANDBOX_TOOLCHAIN_IMAGES).
func setupEnv(env Env) setup.Env {
	home := ""
	if h := env.Getenv("HOME"); h != "" {
		home = filepath.Join(h, ".core")
	} else if tmp := env.Getenv("RUNNER_TEMP"); tmp != "" {
		home = filepath.Join(tmp, "core")
	}
	getenv := func(name string) string {
		v := env.Getenv(name)
		if name == "CORE_SANDBOX_IMAGE" && v == "" {
			// The sandbox_image input: the image of the sibling
			// containers, with the toolchains the repository needs.
			return strings.TrimSpace(env.Getenv("INPUT_SANDBOX_IMAGE"))
		}
		if name == "CORE_SANDBOX_TOOLCHAIN_IMAGES" && v == "" {
			// The toolchain_images input: the other languages' images.
			return strings.TrimSpace(env.Getenv("INPUT_TOOLCHAIN_IMAGES"))
		}
		if name == "CORE_SANDBOX_USER_CACHES" && v == "" {
			// The container's own Go caches go with it, and sibling
			// containers cannot bind them: the sandbox keeps its caches
			// under $CORE_HOME/cache, which the workflows persist with
			// actions/cache.
			return "off"
		}
		return v
	}
	// A run completes at done (idle_timeout 0): every minute a job waits
	// is a billed minute of the runner, after every fix. A person asks
	// for more with another /core fix, whose run continues on the same
	// pull request; messages while the run works still reach it.
	return setup.Env{Getenv: getenv, Home: home, HTTPClient: env.HTTPClient, Self: env.Self, Observer: env.Observer, Defaults: map[string]string{setup.Verify: "auto", setup.ChecksFromCI: "true", setup.IdleTimeout: "0"},
		OnRetry: func(rt model.Retry) { fmt.Fprintf(env.Stderr, "model: %s\n", rt) }}
}

// options builds the session options through setup, the one way in, from
// the inputs and the environment.
func (r *runner) options(ctx context.Context, id string) (session.Options, error) {
	ready, err := setup.Options(ctx, setupEnv(r.env), r.in.Settings)
	if err != nil {
		return session.Options{}, err
	}
	for _, n := range ready.Notices {
		r.a.Noticef("core: %s", n)
	}
	o := ready.Options
	r.store = o.Services.Store
	if o.Verification.Verify == lang.TierTest {
		fmt.Fprintf(r.env.Stderr, "core: verification commands run confined: %s\n", o.Services.Sandbox.Probe(ctx).Summary())
	}
	o.Goal.ID, o.Goal.Repo = id, r.owner+"/"+r.repo
	o.Landing.RunURL = r.runURL() // the core/contract check run links to the job
	setup.AddGitHub(&o, r.client)
	r.secrets = o.Services.Secrets
	o.Services.Approver = tools.DenyApprover{}
	o.Live.Progress, o.Services.Output = r.env.Stderr, r.env.Stderr
	r.listen(ctx, &o)
	return o, nil
}

// listen lets the person who started the run reach it while it works and
// while it waits, idle, for more: the job reads new comments on the issue
// or pull request between turns, from when it started, or for a run the
// bot dispatched from when the bot took the request (what its starter
// wrote while the job was on its way counts too). A run with no one to
// write to it ends at done.
func (r *runner) listen(ctx context.Context, o *session.Options) {
	if r.t.mode == ModeForge || r.t.number == 0 || r.starter() == "" {
		// No one to write to it: a forge brief, a schedule, or a dispatch
		// that names no starter (the bot names its run's in the actor
		// input).
		o.Live.IdleTimeout = 0
		return
	}
	if o.Live.IdleTimeout == session.IdleTriggered {
		// The bot's wait, asked for (idle_timeout 5m): a person who writes
		// to the run moves it onto the attended timeout, as on the bot's
		// own runner.
		o.Live.IdleAfterMessage = session.IdleAttended
	}
	o.Live.Control = live.NewControl()
	since := r.listenSince(ctx)
	if r.in.StatusCommentID != 0 {
		// What came after the bot took the run is a message, not part of
		// the issue it was asked about.
		o.Goal.IssueBefore = since
	}
	o.Live.Poll = newListener(r.client, r.a, r.owner, r.repo, r.t.number, r.starterAccount(ctx), r.t.commentID, since, o.Live.Control).poll
}

// listenSince is where the run's reading of comments starts: when the bot
// created the status comment of the run it dispatched (GitHub's own clock,
// before the dispatch), else a little before now (the clocks of the
// runner and GitHub differ).
func (r *runner) listenSince(ctx context.Context) time.Time {
	since := time.Now().Add(-5 * time.Second)
	if r.in.StatusCommentID == 0 {
		return since
	}
	c, err := r.client.GetComment(ctx, r.owner, r.repo, r.in.StatusCommentID)
	if err != nil {
		r.a.Warningf("core: could not read the bot's status comment (%v): /core messages written before the job started are not read", err)
		return since
	}
	if c.CreatedAt.IsZero() || c.CreatedAt.After(since) {
		return since
	}
	return c.CreatedAt
}

// starter is who started the run: the person whose comment or label
// started it, else the one the bot's dispatch names (the actor input).
func (r *runner) starter() string {
	if r.t.actor.Login != "" {
		return r.t.actor.Login
	}
	return r.in.Actor
}

// starterAccount is starter with its GitHub id: the event's (a comment's
// author, a label's sender), else, for a run the bot dispatched, which
// names a login only (the actor input), the id of the account that holds
// that login when the run starts, looked up once. From then on the account
// decides (gh.SameAccount): a login renamed and taken by another account
// while the run works does not reach it. Where the lookup fails, the login
// decides alone, and the job's log says so.
func (r *runner) starterAccount(ctx context.Context) gh.Account {
	if r.t.actor.Login != "" {
		return gh.Account{Login: r.t.actor.Login, ID: r.t.actor.ID}
	}
	a, err := r.client.AccountOf(ctx, r.in.Actor)
	if err == nil && !gh.SameLogin(a.Login, r.in.Actor) {
		err = fmt.Errorf("GitHub answered @%s", a.Login)
	}
	if err != nil {
		r.a.Warningf("core: @%s, who started the run, is known by login alone: %v", r.in.Actor, err)
		return gh.Account{Login: r.in.Actor}
	}
	return a
}

// fail reports a run that could not start or land.
func (r *runner) fail(ctx context.Context, err error) error {
	kind := session.FailureKindOf(err)
	var hint string
	if r.env.Getenv != nil {
		var config bool
		if hint, config = unreachable(r.env.Getenv, err); config {
			kind = state.FailConfiguration
		}
	}
	err = setup.Word(err, setup.InputWording)
	r.a.SetOutput("status", string(state.Failed))
	r.a.Errorf("core failed (%s): %v", kind, err)
	text := fmt.Sprintf("core could not do it (%s): %v", kind, err)
	if hint != "" {
		r.a.Errorf("%s", hint)
		text += "\n\n" + hint
	}
	if r.status != nil {
		if perr := r.status.post(ctx, text); perr != nil {
			r.a.Warningf("core: could not update the status comment: %v", perr)
		}
	}
	return ErrFailed
}

// finish writes the outputs, the step summary and the status comment, and
// turns the ending into the step's exit status.
func (r *runner) finish(ctx context.Context, rep *session.Report) error {
	r.a.SetOutput("status", string(rep.Status))
	r.a.SetOutput("session_id", rep.ID)
	r.a.SetOutput("branch", rep.Branch)
	r.a.SetOutput("pr_url", rep.PRURL)
	r.a.SetOutput("turns", strconv.Itoa(rep.Turns))
	r.a.SetOutput("prompt_tokens", strconv.Itoa(rep.Usage.PromptTokens))
	r.a.SetOutput("completion_tokens", strconv.Itoa(rep.Usage.CompletionTokens))
	r.a.SetOutput("cost", budget.CostFigure(rep.CostUSD))
	passed, failed := rep.Contract.Counts()
	r.a.SetOutput("verified", strconv.FormatBool(rep.Contract.Held()))
	r.a.SetOutput("contract", string(rep.Contract.VerdictOrNone()))
	r.a.SetOutput("checks_passed", strconv.Itoa(passed))
	r.a.SetOutput("checks_failed", strconv.Itoa(failed))
	if rep.Receipt != nil {
		r.a.SetOutput("receipt_hash", rep.Receipt.Hash)
	}
	r.a.AddStepSummary(stepSummary(r.t.mode, rep))
	r.saveArtifacts(rep.ID, rep.Files)
	if r.status != nil {
		// The bot records the run's cost from the comment's cost marker.
		r.status.cost = budget.CostFigure(rep.CostUSD)
		if err := r.status.post(ctx, statusText(rep)+r.moreLine(rep)); err != nil {
			r.a.Warningf("core: could not update the status comment: %v", err)
		}
	}
	switch rep.Status {
	case state.Completed, state.Idle:
		if rep.Contract.Unjudged() {
			r.a.Warningf("core: %s, for a cause of the environment's, not the code's; the work is UNVERIFIED there", rep.Contract.Line())
		}
		return nil
	case state.Cancelled:
		r.a.Noticef("core: the run was %s", rep.Error)
		return nil
	case state.Partial:
		if _, review := rep.Finding(session.FindingReview); review && rep.Contract.Broken() {
			r.a.Warningf("core: %s; the review says so", rep.Contract.Line())
			return nil
		}
		if rep.Contract.Broken() {
			r.a.Warningf("core: %s; the work landed as a draft marked [checks failing]", rep.Contract.Line())
			return nil
		}
		r.a.Warningf("core stopped before it was done (partial): %s", rep.Error)
		return nil
	case state.BudgetExhausted:
		r.a.Warningf("core stopped at its budget (budget_exhausted): %s", rep.Error)
		return nil
	}
	r.a.Errorf("core failed (%s): %s", rep.FailureKind, rep.Error)
	return ErrFailed
}

// moreLine tells the person how to ask a fix or resolve run that landed
// its work for more: another fix command, whose run continues on the same
// pull request. "" for any other ending.
func (r *runner) moreLine(rep *session.Report) string {
	if (r.t.mode != ModeFix && r.t.mode != ModeResolve) || !rep.Landed || rep.PRURL == "" {
		return ""
	}
	return fmt.Sprintf("\n\nTo ask for more, comment `%s fix <what>`: a new run continues on %s.", r.in.trigger(), rep.PRURL)
}

// statusText is the final status comment, with what the run cost.
func statusText(rep *session.Report) string {
	headline := statusHeadline(rep)
	if warn := rep.OwnRunWarning(); warn != "" {
		headline += "\n\n**Warning**: " + warn + "."
	}
	return headline + "\n\n" + costLine(rep)
}

// costLine says what the run cost, and of what budget.
func costLine(rep *session.Report) string {
	line := "Cost: " + budget.CostText(rep.CostUSD)
	if rep.Budget != nil {
		line += "; budget: " + rep.Budget.Line()
	}
	return line + "."
}

func statusHeadline(rep *session.Report) string {
	review, isReview := rep.Finding(session.FindingReview)
	switch {
	case isReview && rep.Contract.Broken():
		return fmt.Sprintf("core posted its work as %s, but %s: %s (%d turns).\n\n%s", review.Detail, rep.Contract.Line(), rep.PRURL, rep.Turns, rep.Contract.Markdown())
	case isReview:
		return fmt.Sprintf("core is done: %s: %s (%s; %d turns).", review.Detail, rep.PRURL, rep.Contract.StatusLine(), rep.Turns)
	case rep.Status == state.BudgetExhausted && rep.Landed:
		return fmt.Sprintf("core stopped at its budget and landed its unfinished work as a draft marked [budget exhausted]: %s (%d turns). %s", orDefault(rep.PRURL, "branch `"+rep.Branch+"`"), rep.Turns, rep.Error)
	case rep.Status == state.BudgetExhausted:
		return fmt.Sprintf("core stopped at its budget with nothing to land (session `%s`): %s", rep.ID, rep.Error)
	case rep.Status.Succeeded() && rep.PRURL != "":
		return fmt.Sprintf("core is done: %s (%s; %d turns).", rep.PRURL, rep.Contract.StatusLine(), rep.Turns)
	case rep.Status == state.Partial && rep.Contract.Broken():
		return fmt.Sprintf("core landed its work as a draft, but %s: %s (%d turns).\n\n%s", rep.Contract.Line(), orDefault(rep.PRURL, "branch `"+rep.Branch+"`"), rep.Turns, rep.Contract.Markdown())
	case rep.Status.Succeeded():
		if f, ok := rep.Finding(session.FindingNoChange); ok {
			return fmt.Sprintf("core is done, with no change to land (session `%s`): %s", rep.ID, f.Detail)
		}
		return fmt.Sprintf("core is done, with nothing to land (session `%s`).", rep.ID)
	case rep.Status == state.Partial:
		return fmt.Sprintf("core stopped before it was done: %s. The work is not landed (session `%s`).", rep.Error, rep.ID)
	case rep.Status == state.Cancelled && rep.Landed:
		return fmt.Sprintf("core was %s; what it landed stays: %s (session `%s`).", rep.Error, orDefault(rep.PRURL, "branch `"+rep.Branch+"`"), rep.ID)
	case rep.Status == state.Cancelled:
		return fmt.Sprintf("core was %s before it landed anything (session `%s`).", rep.Error, rep.ID)
	}
	return fmt.Sprintf("core failed (%s): %s (session `%s`).", rep.FailureKind, rep.Error, rep.ID)
}
