package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/coreagent/core/forger"
	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/resolver"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/tools"
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
	for _, secret := range []string{in.GitHubToken, in.APIKey} {
		if secret != "" {
			a.AddMask(secret)
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
	status      *status
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
		r.status = &status{client: r.client, owner: r.owner, repo: r.repo, number: r.t.number, runID: r.runID(id), runURL: r.runURL(), id: r.in.StatusCommentID, workflowRun: r.ghctx.RunID}
		if err := r.status.post(ctx, fmt.Sprintf("core is on it: %s session `%s` is running.", r.t.mode, id)); err != nil {
			return err
		}
	}
	opts, err := r.options(ctx, id)
	if err != nil {
		return r.fail(ctx, err)
	}
	if r.status != nil {
		opts.OnStep = r.progress(ctx, id)
	}
	var rep *session.Report
	switch r.t.mode {
	case ModeFix:
		opts.Issue, opts.Prompt = r.t.number, r.t.instruction
		rep, err = session.Run(ctx, opts)
	case ModeResolve:
		rep, err = resolver.Run(ctx, resolver.Request{Client: r.client, Owner: r.owner, Repo: r.repo, Number: r.t.number, Instruction: r.t.instruction}, opts)
	case ModeForge:
		var res forger.Result
		res, err = forger.Run(ctx, forger.Config{Client: r.client, Owner: r.owner, Repo: r.repo, Label: r.in.ForgeLabel, RunID: r.runID(id), Getenv: r.env.Getenv}, opts)
		if err == nil && res.Report == nil {
			r.a.Noticef("core: %s", res.Reason)
			return nil
		}
		rep = res.Report
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
		text := fmt.Sprintf("core is on it: %s session `%s`, turn %d of at most %d (%s %s).", r.t.mode, id, st.Turn, maxTurns, st.Tool, st.Target)
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
		return fmt.Sprintf("%s is a bot account; core takes commands from people only.", login), nil
	}
	perm, err := r.client.Permission(ctx, r.owner, r.repo, login)
	if err != nil {
		return "", err
	}
	if !gh.CanWrite(perm) {
		return fmt.Sprintf("@%s, only people with write, maintain or admin permission on %s/%s can ask core to work (your permission: %s).", login, r.owner, r.repo, perm), nil
	}
	return "", nil
}

// options builds the session options from the inputs and the environment.
func (r *runner) options(ctx context.Context, id string) (session.Options, error) {
	var o session.Options
	getenv := r.env.Getenv
	// The default state directory lies under HOME, which the runner mounts
	// from the host at /github/home: the Docker backend can share its
	// workspaces with sibling containers. RUNNER_TEMP keeps its host path and
	// is not mounted inside a Docker action.
	home := getenv("CORE_HOME")
	if home == "" {
		if h := getenv("HOME"); h != "" {
			home = filepath.Join(h, ".core")
		} else if tmp := getenv("RUNNER_TEMP"); tmp != "" {
			home = filepath.Join(tmp, "core")
		}
	}
	store, err := session.OpenStore(home)
	if err != nil {
		return o, err
	}
	sbCfg, err := sandbox.ConfigFromEnv(home, getenv)
	if err != nil {
		return o, err
	}
	sb := sandbox.New(sbCfg)
	tier, err := r.verifyTier(ctx, sb)
	if err != nil {
		return o, err
	}
	if tier == sandbox.TierTest {
		fmt.Fprintf(r.env.Stderr, "core: verification commands run confined: %s\n", sb.Probe(ctx).Summary())
	}
	url, _, err := model.Endpoint(ctx, r.env.HTTPClient, r.in.InferenceURL, getenv("CORE_SESSION_INFERENCE_URL"))
	if err != nil {
		return o, fmt.Errorf("no inference_url input and no local model server: %w", err)
	}
	modelName := orDefault(r.in.Model, session.DefaultModel)
	o = session.Options{
		ID:           id,
		Repo:         r.owner + "/" + r.repo,
		Model:        modelName,
		InferenceURL: url,
		MaxTurns:     r.in.MaxTurns,
		Timeout:      r.in.Timeout,
		Verify:       tier,
		DryRun:       r.in.DryRun,
		GitHub:       r.client,
		Secrets:      append(r.client.Secrets(), r.in.APIKey),
		Store:        store,
		Sandbox:      sb,
		Client:       model.New(model.Config{BaseURL: url, APIKey: r.in.APIKey, Model: modelName, HTTPClient: r.env.HTTPClient}),
		Approver:     tools.DenyApprover{},
		Progress:     r.env.Stderr,
		Output:       r.env.Stderr,
		GitEnv:       session.GitEnv(getenv),
	}
	return o, nil
}

// verifyTier resolves the verify input: auto is build, raised to test when
// the sandbox works here; an explicit test needs the sandbox.
func (r *runner) verifyTier(ctx context.Context, sb *sandbox.Sandbox) (sandbox.Tier, error) {
	v := r.in.Verify
	if v == "auto" {
		if e := r.env.Getenv("CORE_SESSION_VERIFY"); e != "" {
			return sandbox.ParseTier(e)
		}
		if usable, err := sb.Usable(ctx); err == nil && usable {
			return sandbox.TierTest, nil
		}
		r.a.Noticef("core: the sandbox is not usable here (%s): verifying with build only", sb.Probe(ctx).Summary())
		return sandbox.TierBuild, nil
	}
	tier, err := sandbox.ParseTier(v)
	if err != nil {
		return "", &session.ConfigError{Err: fmt.Errorf("the verify input: %w", err)}
	}
	if err := sb.Require(ctx, tier); err != nil {
		// The workflow asked for what this machine cannot give: a
		// configuration to change, as in the CLI.
		return "", &session.ConfigError{Err: err}
	}
	return tier, nil
}

// fail reports a run that could not start or land.
func (r *runner) fail(ctx context.Context, err error) error {
	kind := session.FailError
	var ce *session.ConfigError
	if errors.As(err, &ce) {
		kind = session.FailConfiguration
	}
	r.a.SetOutput("status", string(session.StatusFailed))
	r.a.Errorf("core failed (%s): %v", kind, err)
	if r.status != nil {
		if perr := r.status.post(ctx, fmt.Sprintf("core could not do it (%s): %v", kind, err)); perr != nil {
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
	r.a.SetOutput("verified", strconv.FormatBool(!rep.Unverified))
	r.a.AddStepSummary(stepSummary(r.t.mode, rep))
	if r.status != nil {
		if err := r.status.post(ctx, statusText(rep)); err != nil {
			r.a.Warningf("core: could not update the status comment: %v", err)
		}
	}
	switch rep.Status {
	case session.StatusDone:
		return nil
	case session.StatusPartial:
		r.a.Warningf("core stopped before it was done (partial): %s", rep.Error)
		return nil
	}
	r.a.Errorf("core failed (%s): %s", rep.FailureKind, rep.Error)
	return ErrFailed
}

// statusText is the final status comment.
func statusText(rep *session.Report) string {
	switch {
	case rep.Status == session.StatusDone && rep.PRURL != "":
		verified := "verified"
		if rep.Unverified {
			verified = "**UNVERIFIED**: no verification command ran"
		}
		return fmt.Sprintf("core is done: %s (%s; %d turns).", rep.PRURL, verified, rep.Turns)
	case rep.Status == session.StatusDone:
		return fmt.Sprintf("core is done, with nothing to land (session `%s`).", rep.ID)
	case rep.Status == session.StatusPartial:
		return fmt.Sprintf("core stopped before it was done: %s. The work is not landed (session `%s`).", rep.Error, rep.ID)
	}
	return fmt.Sprintf("core failed (%s): %s (session `%s`).", rep.FailureKind, rep.Error, rep.ID)
}
