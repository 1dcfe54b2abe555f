package bot

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/status"
)

// commentByID is commentPayload from the account with GitHub id id.
func commentByID(t *testing.T, login string, id int64, number int, commentID int64, body string) []byte {
	t.Helper()
	return payload(t, "issue_comment", "created", map[string]any{
		"comment.id": commentID, "comment.body": body, "comment.user.login": login, "comment.user.type": "User",
		"comment.user.id": id, "issue.number": number, "issue.pull_request": nil,
		"sender.login": login, "sender.type": "User", "sender.id": id,
	})
}

// TestStopKnowsTheStarterByID: the run keeps its starter's GitHub id, so
// someone who took the starter's freed login (another id) may not stop
// it, and the starter under a new login (the same id) may. Before, the
// logins were compared: the newcomer stopped the run, the renamed starter
// could not.
func TestStopKnowsTheStarterByID(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	f.deliver(t, "issue_comment", "id-fix", commentByID(t, "alice", 501, n, cid, "/core fix"))
	f.settle(t)
	active, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	require.NotNil(t, active)
	assert.Equal(t, int64(501), active.ActorID)
	f.g.AddToken("ghs_alice", "alice")
	alice, err := gh.New(gh.Credentials{Token: "ghs_alice", APIURL: f.g.APIURL()}, nil)
	require.NoError(t, err)
	require.NoError(t, alice.EditComment(t.Context(), "octo", "hello", active.StatusCommentID,
		status.Comment{RunID: active.ID, Text: "core is on it.", WorkflowRun: 987}.Body()))

	cid = f.addComment(t, n, "alice", "/core stop")
	f.deliver(t, "issue_comment", "id-other", commentByID(t, "alice", 777, n, cid, "/core stop"))
	f.settle(t)
	still, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.NotNil(t, still, "the stop of another account with the login alice is refused")
	assert.Empty(t, f.g.CancelledRuns("octo", "hello"))

	require.NoError(t, f.g.SetPermission("octo", "hello", "alice-renamed", "write"))
	cid = f.addComment(t, n, "alice-renamed", "/core stop")
	f.deliver(t, "issue_comment", "id-renamed", commentByID(t, "alice-renamed", 501, n, cid, "/core stop"))
	f.settle(t)
	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, run, "the starter under a new login stops it")
	assert.Equal(t, []int64{987}, f.g.CancelledRuns("octo", "hello"))
}
