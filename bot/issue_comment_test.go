package bot

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// addComment puts a comment on GitHub and returns its id, so the delivery
// names a real comment.
func (f *fixture) addComment(t testing.TB, number int, login, body string) int64 {
	t.Helper()
	id, err := f.g.AddComment("octo", "hello", number, ghfake.Comment{User: login, Body: body})
	require.NoError(t, err)
	return id
}

func (f *fixture) addIssue(t testing.TB) int {
	t.Helper()
	n, err := f.g.AddIssue("octo", "hello", ghfake.Issue{Title: "Make it loud", Body: "It should shout.", User: "alice"})
	require.NoError(t, err)
	return n
}

func botComments(f *fixture, number int) []ghfake.Comment {
	var out []ghfake.Comment
	for _, c := range f.g.Comments("octo", "hello", number) {
		if c.User == "core-app[bot]" {
			out = append(out, c)
		}
	}
	return out
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
