package forger

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
)

const token = "ghs_ForgerTestToken123"

type fixture struct {
	g      *ghfake.GitHub
	client *gh.Client
}

func newFixture(t *testing.T, briefs ...string) *fixture {
	t.Helper()
	g := ghfake.NewGitHub(t)
	g.AddToken(token, "core-bot")
	g.MustAddRepo(t, "octo", "hello", map[string]string{"README": "hi\n"})
	require.NoError(t, g.SetPermission("octo", "hello", "core-bot", "write"))
	for i, title := range briefs {
		_, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: title, Labels: []string{"forge"}, CreatedAt: time.Now().Add(time.Duration(i-len(briefs)) * time.Hour)})
		require.NoError(t, err)
	}
	require.NoError(t, g.SetVariable("octo", "hello", ArmVariable, "true"))
	client, err := gh.New(gh.Credentials{Token: token, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	return &fixture{g: g, client: client}
}

func (f *fixture) options(t *testing.T, srv *llm.ModelServer) session.Options {
	t.Helper()
	home := t.TempDir()
	st, err := session.OpenStore(home)
	require.NoError(t, err)
	return session.Options{
		Goal: session.Goal{Repo: "octo/hello"},
		Services: session.Services{
			Store:   st,
			Sandbox: sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeOff, Path: os.Getenv("PATH")}),
			Client:  model.New(model.Config{BaseURL: srv.URL, Backoff: model.Backoff{Initial: time.Millisecond, Max: time.Millisecond}}),
			GitHub:  f.client,
			Secrets: f.client.Secrets(),
			GitEnv:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
		},
	}
}

func (f *fixture) config(runID string) Config {
	return Config{Client: f.client, Owner: "octo", Repo: "hello", Label: "forge", RunID: runID}
}

func TestTwoRunsAtOnceClaimDifferentBriefs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "first brief", "second brief")
	var wg sync.WaitGroup
	results := make([]Result, 2)
	errs := make([]error, 2)
	for i := range 2 {
		srv := llm.NewModelServer(t,
			llm.ContentReply("tool: write_file\npath: f"+string(rune('a'+i))+".txt\ncontent: x"),
			llm.ContentReply("tool: done\nsummary: did it"))
		srv.AllowExhaustion()
		opts := f.options(t, srv)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = Run(t.Context(), f.config("run-"+string(rune('a'+i))), fixed(opts))
		}()
	}
	wg.Wait()
	for i := range 2 {
		require.NoError(t, errs[i])
		require.NotNil(t, results[i].Report, results[i].Reason)
		assert.Equal(t, state.Completed, results[i].Report.Status, results[i].Report.Error)
	}
	assert.NotEqual(t, results[0].Issue, results[1].Issue, "two runs worked the same brief")
	assert.ElementsMatch(t, []int{1, 2}, []int{results[0].Issue, results[1].Issue})
	pulls := f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 2)
}

func TestFailureReleasesTheClaim(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "a brief")
	srv := llm.NewModelServer(t,
		llm.ContentReply("no action here"), llm.ContentReply("none"), llm.ContentReply("still none"))
	res, err := Run(t.Context(), f.config("run-x"), fixed(f.options(t, srv)))
	require.NoError(t, err)
	require.NotNil(t, res.Report)
	assert.Equal(t, state.Failed, res.Report.Status)
	is, ok := f.g.Issue("octo", "hello", 1)
	require.True(t, ok)
	assert.NotContains(t, is.Labels, ClaimLabel, "the claim is removed")
	comments := f.g.Comments("octo", "hello", 1)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0].Body, "core gave this brief back (run `run-x`): failed (stalled): consecutive malformed replies")
	assert.NotContains(t, comments[0].Body, "<!-- core:claim:run-x -->")

	// The brief waits again: the next run takes it, though an old claim
	// comment stands on it.
	srv2 := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: done now"))
	res, err = Run(t.Context(), f.config("run-y"), fixed(f.options(t, srv2)))
	require.NoError(t, err)
	require.NotNil(t, res.Report, res.Reason)
	assert.Equal(t, 1, res.Issue)
	assert.Equal(t, state.Completed, res.Report.Status, res.Report.Error)
}

func TestBriefSelection(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "oldest, claimed", "has an open core PR", "the one", "newest")
	require.NoError(t, f.client.AddLabels(t.Context(), "octo", "hello", 1, ClaimLabel))
	repo := f.g.Repo("octo", "hello")
	_, err := repo.Commit(t.Context(), "core-session/x", "work", map[string]string{"x": "x"})
	require.NoError(t, err)
	_, err = f.g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "wip", Head: "core-session/x", Body: "<!-- core:issue:2 -->", Draft: true})
	require.NoError(t, err)
	got, err := f.config("r").briefs(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []int{3, 4}, got, "oldest first, without the claimed one, the one with a core PR, and pull requests")

	require.NoError(t, f.g.SetVariable("octo", "hello", ArmVariable, "false"))
	res, err := Run(t.Context(), f.config("r"), func() (session.Options, error) {
		t.Fatal("a disarmed forger builds no session options")
		return session.Options{}, nil
	})
	require.NoError(t, err)
	assert.Nil(t, res.Report)
	assert.True(t, strings.Contains(res.Reason, "disarmed"))
}

func TestRacingClaimsOnOneBriefHaveOneWinner(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "contested")
	const runs = 5
	var wg sync.WaitGroup
	won := make([]bool, runs)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := f.config("run-"+string(rune('a'+i))).claim(t.Context(), 1)
			assert.NoError(t, err)
			won[i] = w
		}()
	}
	wg.Wait()
	winners := 0
	for _, w := range won {
		if w {
			winners++
		}
	}
	assert.Equal(t, 1, winners, "exactly one claim wins")
	live := 0
	for _, c := range f.g.Comments("octo", "hello", 1) {
		if strings.Contains(c.Body, claimPrefix) {
			live++
		}
	}
	assert.Equal(t, 1, live, "the losers withdrew their claims")
}

// fixed returns options as a forger.Run options builder.
func fixed(opts session.Options) func() (session.Options, error) {
	return func() (session.Options, error) { return opts, nil }
}
