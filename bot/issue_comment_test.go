package bot

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/status"
)

// addComment puts a comment on GitHub and returns its id, so the delivery
// names a real comment.
func (f *fixture) addComment(t testing.TB, number int, login, body string) int64 {
	t.Helper()
	id, err := f.g.AddComment("octo", "hello", number, testkit.Comment{User: login, Body: body})
	require.NoError(t, err)
	return id
}

func (f *fixture) addIssue(t testing.TB) int {
	t.Helper()
	n, err := f.g.AddIssue("octo", "hello", testkit.Issue{Title: "Make it loud", Body: "It should shout.", User: "alice"})
	require.NoError(t, err)
	return n
}

func botComments(f *fixture, number int) []testkit.Comment {
	var out []testkit.Comment
	for _, c := range f.g.Comments("octo", "hello", number) {
		if c.User == "core-app[bot]" {
			out = append(out, c)
		}
	}
	return out
}

func TestFixDispatchesOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix keep it short")
	body := commentPayload(t, "alice", "User", n, cid, "Thanks!\n/core fix keep it short", false)

	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-1", body))
	// The same delivery again, and the same comment in another delivery.
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-1", body))
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-2", body))
	f.settle(t)

	ds := f.g.Dispatches("octo", "hello")
	require.Len(t, ds, 1, "one run")
	assert.Equal(t, "core.yml", ds[0].Workflow)
	assert.Equal(t, "main", ds[0].Ref)
	assert.Equal(t, "fix", ds[0].Inputs["mode"])
	assert.Equal(t, "1", ds[0].Inputs["issue"])
	assert.Equal(t, "keep it short", ds[0].Inputs["instruction"])
	runID, _ := ds[0].Inputs["run_id"].(string)
	require.NotEmpty(t, runID)

	reactions := f.g.CommentReactions("octo", "hello", cid)
	require.Len(t, reactions, 1)
	assert.Equal(t, "eyes", reactions[0].Content)
	status := botComments(f, n)
	require.Len(t, status, 1)
	assert.Contains(t, status[0].Body, "running on GitHub Actions")
	assert.Contains(t, status[0].Body, "<!-- core:status:"+runID+" -->")
	assert.Equal(t, ds[0].Inputs["status_comment_id"], itoa(status[0].ID))

	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	require.NotNil(t, run)
	assert.Equal(t, StateRunning, run.State)
}

func TestRefusalsAndNonCommands(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	tests := []struct {
		name, login, userType, body, action string
	}{
		{name: "reader", login: "rita", userType: "User", body: "/core fix", action: "created"},
		{name: "bot by type", login: "helper", userType: "Bot", body: "/core fix", action: "created"},
		{name: "bot by suffix", login: "sneaky[bot]", userType: "User", body: "/core fix", action: "created"},
		{name: "quoted", login: "alice", userType: "User", body: "> /core fix\nno", action: "created"},
		{name: "in code", login: "alice", userType: "User", body: "```\n/core fix\n```", action: "created"},
		{name: "edited", login: "alice", userType: "User", body: "/core fix", action: "edited"},
		{name: "deleted", login: "alice", userType: "User", body: "/core fix", action: "deleted"},
	}
	for i, tt := range tests {
		cid := f.addComment(t, n, tt.login, tt.body)
		p := commentPayload(t, tt.login, tt.userType, n, cid, tt.body, false)
		if tt.action != "created" {
			p = payload(t, "issue_comment", tt.action, map[string]any{"comment.id": cid, "comment.body": tt.body, "comment.user.login": tt.login, "comment.user.type": tt.userType, "issue.number": n, "issue.pull_request": nil})
		}
		assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "r-"+itoa(int64(i)), p), tt.name)
	}
	f.settle(t)
	assert.Empty(t, f.g.Dispatches("octo", "hello"), "nobody started a run")
	replies := botComments(f, n)
	require.Len(t, replies, 1, "only the reader gets a reply")
	assert.Contains(t, replies[0].Body, "@rita, only people with write, maintain or admin permission on octo/hello can ask core to work (your permission: read)")
}

func TestBadSignature(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	before := len(f.g.Requests())
	body := commentPayload(t, "alice", "User", n, 1, "/core fix", false)
	code := deliverTo(t, f.http.URL, "the wrong secret", "issue_comment", "bad-1", body)
	assert.GreaterOrEqual(t, code, 400)
	assert.Less(t, code, 500)
	req, err := http.NewRequest(http.MethodPost, f.http.URL+WebhookPath, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("X-GitHub-Event", "issue_comment")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "no signature at all")
	// Refused before it is queued: the answer came after the check.
	assert.Len(t, f.g.Requests(), before, "nothing reached GitHub")
}

func TestTwoFixesAtOnceMakeOneRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	var wg sync.WaitGroup
	for i := range 4 {
		cid := f.addComment(t, n, "alice", "/core fix")
		body := commentPayload(t, "alice", "User", n, cid, "/core fix", false)
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "c-"+itoa(int64(i)), body))
		}()
	}
	wg.Wait()
	f.settle(t)
	require.Len(t, f.g.Dispatches("octo", "hello"), 1)
	already := 0
	for _, c := range botComments(f, n) {
		if strings.Contains(c.Body, "core is already working on this (run `") {
			already++
		}
	}
	assert.Equal(t, 3, already, "each later request points at the running one")
}

func TestRestartDoesNotDuplicate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	body := commentPayload(t, "alice", "User", n, cid, "/core fix", false)
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "restart-1", body))
	f.settle(t)
	f.stop()
	f.start(t)
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "restart-1", body))
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "restart-2", body))
	f.settle(t)
	assert.Len(t, f.g.Dispatches("octo", "hello"), 1)
}

func TestHelpAndStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core help")
	f.deliver(t, "issue_comment", "h-1", commentPayload(t, "alice", "User", n, cid, "/core help", false))
	f.settle(t)
	require.Len(t, botComments(f, n), 1)
	assert.Contains(t, botComments(f, n)[0].Body, "`/core fix [instruction]`")

	cid = f.addComment(t, n, "alice", "/core fix")
	f.deliver(t, "issue_comment", "h-2", commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	f.settle(t)
	// The dispatched Action names its workflow run in the status comment.
	active, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	require.NotNil(t, active)
	f.g.AddToken("ghs_alice", "alice")
	alice, err := gh.New(gh.Credentials{Token: "ghs_alice", APIURL: f.g.APIURL()}, nil)
	require.NoError(t, err)
	require.NoError(t, alice.EditComment(t.Context(), "octo", "hello", active.StatusCommentID,
		status.Comment{RunID: active.ID, Text: "core is on it.", WorkflowRun: 987}.Body()))

	cid = f.addComment(t, n, "alice", "/core stop")
	f.deliver(t, "issue_comment", "h-3", commentPayload(t, "alice", "User", n, cid, "/core stop", false))
	f.settle(t)
	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, run, "stopped")
	assert.Equal(t, []int64{987}, f.g.CancelledRuns("octo", "hello"), "the workflow run is cancelled")
	assert.Contains(t, statusOf(f, n), "stopped: workflow run 987 cancelled.")
}

func TestLabelAndMissingWorkflow(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.Workflow = "missing.yml" }, nil)
	n := f.addIssue(t)
	p := payload(t, "issues", "labeled", map[string]any{"label.name": status.FixLabel, "issue.number": n, "issue.pull_request": nil, "sender.login": "alice", "sender.type": "User"})
	assert.Equal(t, http.StatusOK, f.deliver(t, "issues", "l-1", p))
	f.settle(t)
	comments := botComments(f, n)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0].Body, "this repository has no workflow `.github/workflows/missing.yml`")
}
