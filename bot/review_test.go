package bot

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/status"
)

// addPull adds pull request "topic" to octo/hello, open, closed or
// merged.
func (f *fixture) addPull(t *testing.T, state string) int {
	t.Helper()
	_, err := f.g.Repo("octo", "hello").Commit(t.Context(), "topic", "work", map[string]string{"topic.txt": "work\n"})
	require.NoError(t, err)
	pull := ghfake.Pull{Title: "Work", Head: "topic", User: "alice", State: state}
	if state == "merged" {
		pull.State, pull.Merged = "closed", true
	}
	n, err := f.g.AddPull(t.Context(), "octo", "hello", pull)
	require.NoError(t, err)
	return n
}

func TestReviewCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		pull     string // "": an issue; else the pull request's state
		wantRun  bool
		wantSaid string
	}{
		{name: "an open pull request", pull: "open", wantRun: true, wantSaid: "working on GitHub Actions"},
		{name: "an issue", wantSaid: "`/core review` reviews a pull request: comment it on one"},
		{name: "a closed pull request", pull: "closed", wantSaid: "core: pull request #1 is closed: core reviews only open pull requests (reopen it, or review the branch locally with core review --base)"},
		{name: "a merged pull request", pull: "merged", wantSaid: "core: pull request #1 is merged: core reviews only open pull requests (a merged one cannot be reopened: review a branch locally with core review --base)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, nil)
			var n int
			if tt.pull == "" {
				n = f.addIssue(t)
			} else {
				n = f.addPull(t, tt.pull)
			}
			cid := f.addComment(t, n, "alice", "/core review look at the parser")
			body := commentPayload(t, "alice", "User", n, cid, "/core review look at the parser", tt.pull != "")
			assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-review", body))
			f.settle(t)
			ds := f.g.Dispatches("octo", "hello")
			said := botComments(f, n)
			require.Len(t, said, 1)
			assert.Contains(t, said[0].Body, tt.wantSaid)
			if !tt.wantRun {
				assert.Empty(t, ds, "no run")
				return
			}
			require.Len(t, ds, 1)
			assert.Equal(t, "review", ds[0].Inputs["mode"])
			assert.Equal(t, itoa(int64(n)), ds[0].Inputs["pull_request"])
			assert.Nil(t, ds[0].Inputs["issue"])
			assert.Equal(t, "look at the parser", ds[0].Inputs["instruction"])
			assert.Contains(t, said[0].Body, "core review (run `")
		})
	}
}

func TestReviewLabel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addPull(t, "open")
	p := payload(t, "pull_request", "labeled", map[string]any{"label.name": status.ReviewLabel, "number": n, "pull_request.number": n, "sender.login": "alice", "sender.type": "User"})
	assert.Equal(t, http.StatusOK, f.deliver(t, "pull_request", "d-label", p))
	f.settle(t)
	ds := f.g.Dispatches("octo", "hello")
	require.Len(t, ds, 1)
	assert.Equal(t, "review", ds[0].Inputs["mode"])
}

// TestLocalReviewPostsOneReview runs /core review in the bot's own process
// with the scripted model: the review is posted on the pull request's
// head, its status comment says where, and nothing is pushed.
func TestLocalReviewPostsOneReview(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: topic.txt\ncontent: changed"),
		llm.ContentReply("tool: done\nsummary: topic.txt needs a test."))
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal }, nil)
	f.env = localEnv(t, srv)
	n := f.addPull(t, "open")
	cid := f.addComment(t, n, "alice", "/core review")
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "local-review", commentPayload(t, "alice", "User", n, cid, "/core review", true)))
	waitFor(t, "the review run ends", func() bool {
		run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
		return err == nil && run == nil && len(f.g.Reviews("octo", "hello", n)) == 1
	})
	require.NoError(t, f.bot.Shutdown(t.Context()))
	rv := f.g.Reviews("octo", "hello", n)
	require.Len(t, rv, 1)
	assert.Equal(t, "COMMENTED", rv[0].State)
	assert.Contains(t, rv[0].Body, "topic.txt needs a test.")
	assert.Contains(t, rv[0].Body, status.ReviewMarker(rv[0].CommitID))
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	last := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	assert.Contains(t, last, "write_file: this is a review: it changes no code", "the write tool was refused")
	for _, r := range f.g.Requests() {
		assert.NotContains(t, r.Path, "git-receive-pack", "a review pushes nothing")
		assert.NotContains(t, r.Path, "/git/refs", "a review moves no ref")
		assert.False(t, r.Method == http.MethodPost && r.Path == "/repos/octo/hello/pulls", "a review opens no pull request")
	}
	assert.Len(t, f.g.Pulls("octo", "hello"), 1)
	assert.Contains(t, statusOf(f, n), "#pullrequestreview-", "the status comment links the review")
}
