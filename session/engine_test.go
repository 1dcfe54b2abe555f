package session

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
)

// testOptions returns Options for a run against srv, with the sandbox off.
func testOptions(t testing.TB, srv *llm.ModelServer, repo string) Options {
	t.Helper()
	home := t.TempDir()
	st, err := OpenStore(home)
	require.NoError(t, err)
	return Options{
		Goal: Goal{Repo: repo, Prompt: "do the thing"},
		Services: Services{
			Store:   st,
			Sandbox: sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeOff, Path: os.Getenv("PATH")}),
			Client: model.New(model.Config{BaseURL: srv.URL, Model: "coder",
				Backoff: model.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}}),
			GitEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
		},
	}
}

func TestInteractive(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
		llm.ContentReply("tool: write_file\npath: b.txt\ncontent: b"),
		llm.ContentReply("tool: done\nsummary: wrote b"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Interactive = true
	// Each done lands (y), and the idle run asks for the next
	// instruction until /exit.
	opts.Services.Input = strings.NewReader("y\nnow b\ny\n/exit\n")
	var out strings.Builder
	opts.Services.Output = &out
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.True(t, rep.Landed)
	assert.Contains(t, out.String(), "next instruction (/exit to stop)> ")
	assert.Contains(t, out.String(), "commit and land branch "+rep.Branch+" in "+repo+"? [y/N] ", "a local repository is not pushed and gets no pull request")
	assert.NotContains(t, out.String(), "pull request")
	assert.Equal(t, "b", testkit.Git(t, repo, "show", rep.Branch+":b.txt"))
	assert.Equal(t, "a", testkit.Git(t, repo, "show", rep.Branch+":a.txt"))
	// Each landing prints its branch and commit and the contract's
	// verdict before the idle prompt, not only in the summary after
	// /exit; the second instruction's landing prints its own.
	landed := func(commit string) string {
		return regexp.QuoteMeta("? [y/N] branch: "+rep.Branch+" (commit "+clip.Hash(commit)+")\n") +
			`.*UNVERIFIED.*\n` + regexp.QuoteMeta("next instruction (/exit to stop)> ")
	}
	first := testkit.Git(t, repo, "rev-parse", rep.Branch+"~1")
	assert.Regexp(t, `(?s)`+landed(first)+`.*`+landed(rep.Commit)+`$`, out.String())
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	last := reqs[3].Messages
	assert.Contains(t, last[len(last)-3].Content, "now b\n\n/no_think")
	assert.Contains(t, last[len(last)-3].Content, "Message from local user", "who sent it")
}

func TestInteractiveDeclinesLanding(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Interactive = true
	opts.Services.Input = strings.NewReader("/exit\n") // then EOF: no
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.Completed, rep.Status)
	assert.False(t, rep.Landed)
	cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", rep.Branch)
	cmd.Dir = repo
	assert.Error(t, cmd.Run(), "nothing lands without a yes")
}

func TestTurnTimeoutIsPartial(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: late").After(time.Hour))
	srv.AllowExhaustion()
	opts := testOptions(t, srv, repo)
	opts.Limits.TurnTimeout = 200 * time.Millisecond
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.Partial, rep.Status)
	assert.Contains(t, rep.Error, "ran past its 200ms limit (--turn-timeout)")
}

func TestEndpointOutageIsInfrastructure(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	var replies []llm.Reply
	for range 200 {
		replies = append(replies, llm.ErrorReply(503, "loading model"))
	}
	srv := llm.NewModelServer(t, replies...)
	srv.AllowExhaustion()
	opts := testOptions(t, srv, repo)
	// The outage outlasts the client's attempts, not a turn timeout that
	// a busy machine might reach before the second attempt.
	opts.Services.Client = model.New(model.Config{BaseURL: srv.URL, Model: "coder", MaxAttempts: 3,
		Backoff: model.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}})
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.Failed, rep.Status)
	assert.Equal(t, state.FailInfrastructure, rep.FailureKind)
	assert.Contains(t, rep.Error, "503")
	assert.Greater(t, len(srv.Requests()), 1, "transient failures are retried")
}

func TestOnStepSeesEveryTurnScrubbed(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: read_file\npath: sekrit-value.txt"),
		llm.ContentReply("tool: done\nsummary: ok"))
	opts := testOptions(t, srv, repo)
	opts.Services.Secrets = []string{"sekrit-value"}
	var steps []Step
	opts.Live.OnStep = func(st Step, max int) {
		assert.Equal(t, DefaultMaxTurns, max)
		steps = append(steps, st)
	}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Len(t, steps, 2)
	assert.Equal(t, "read_file", steps[0].Tool)
	assert.Equal(t, "[redacted].txt", steps[0].Target)
	assert.Equal(t, "[redacted].txt", rep.Steps[0].Target, "the report is scrubbed too")
	assert.Equal(t, "done", steps[1].Tool)
}

func TestTransientFailureRetriedWithinTheTurn(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ErrorReply(503, "loading"),
		llm.ErrorReply(429, "slow down"),
		llm.ContentReply("tool: done\nsummary: ok"),
	)
	rep, err := Run(t.Context(), testOptions(t, srv, repo))
	require.NoError(t, err)
	assert.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Equal(t, 1, rep.Turns)
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	never := make(chan struct{})
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: late").Until(never))
	srv.AllowExhaustion()
	opts := testOptions(t, srv, repo)
	ctx, cancel := context.WithCancel(t.Context())
	// The user interrupts while the first turn is asked for: an event,
	// not a guess at how long the clone takes.
	opts.Services.Client = cancelOnCall{Completer: opts.Services.Client, cancel: cancel}
	rep, err := Run(ctx, opts)
	require.NoError(t, err)
	assert.Equal(t, state.Cancelled, rep.Status, rep.Error)
	rec, err := opts.Services.Store.Load(rep.ID)
	require.NoError(t, err)
	assert.Equal(t, state.Cancelled, rec.Status, "the ending is saved even after ctx ended")
	_, err = opts.Services.Store.LoadReport(rep.ID)
	assert.NoError(t, err)
}

// cancelOnCall cancels the run's context when the model is called, then
// asks the model.
type cancelOnCall struct {
	Completer
	cancel context.CancelFunc
}

func (c cancelOnCall) Complete(ctx context.Context, msgs []model.Message) (model.Reply, error) {
	c.cancel()
	return c.Completer.Complete(ctx, msgs)
}

func TestRunRefusesBadOptions(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t)
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{name: "no goal", edit: func(o *Options) { o.Goal.Prompt = " " }, want: "a goal is required"},
		{name: "not a repo", edit: func(o *Options) { o.Goal.Repo = t.TempDir() }, want: "is not a git repository"},
		{name: "missing path", edit: func(o *Options) { o.Goal.Repo = "/nonexistent/x" }, want: "repo: /nonexistent/x: no such directory"},
		{name: "not a repo name", edit: func(o *Options) { o.Goal.Repo = "x" }, want: `repo: must be owner/name or a local path to a git repository, got "x"`},
		{name: "github without a client", edit: func(o *Options) { o.Goal.Repo = "octo/hello" }, want: "no GitHub client"},
		{name: "bad base", edit: func(o *Options) { o.Goal.Base = "nope" }, want: `base: "nope": no such branch or commit`},
		{name: "bad branch", edit: func(o *Options) { o.Goal.Branch = "a..b" }, want: `branch: "a..b" is not a valid branch name`},
		{name: "checked-out branch", edit: func(o *Options) { o.Goal.Branch = "main" }, want: "branch main is checked out"},
		{name: "negative turns", edit: func(o *Options) { o.Limits.MaxTurns = -1 }, want: "max-turns: must be positive"},
		{name: "test tier without sandbox", edit: func(o *Options) { o.Verification.Verify = lang.TierTest }, want: "the test tier runs workspace code and needs the sandbox"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions(t, srv, repo)
			tt.edit(&opts)
			_, err := Run(t.Context(), opts)
			require.Error(t, err)
			var ce *ConfigError
			assert.ErrorAs(t, err, &ce)
			assert.Contains(t, err.Error(), tt.want)
			// Pre-flight: nothing was created for a run that could not start.
			entries, rerr := os.ReadDir(opts.Services.Store.Dir(""))
			require.NoError(t, rerr)
			assert.Empty(t, entries, "no session record")
		})
	}
}
