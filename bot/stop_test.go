package bot

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/status"
)

// TestStop: /core stop cancels the workflow run the Action named in the
// status comment, and says so.
func TestStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core stop")
	f.deliver(t, "issue_comment", "h-0", commentPayload(t, "alice", "User", n, cid, "/core stop", false))
	f.settle(t)
	require.Len(t, botComments(f, n), 1)
	assert.Contains(t, botComments(f, n)[0].Body, "there is no run to stop here")

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

	// Another writer may not stop alice's run: refused, with a reply.
	require.NoError(t, f.g.SetPermission("octo", "hello", "bob", "write"))
	cid = f.addComment(t, n, "bob", "/core stop")
	f.deliver(t, "issue_comment", "h-b", commentPayload(t, "bob", "User", n, cid, "/core stop", false))
	f.settle(t)
	still, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.NotNil(t, still, "bob's stop is refused")
	assert.Empty(t, f.g.CancelledRuns("octo", "hello"))
	last := botComments(f, n)[len(botComments(f, n))-1].Body
	assert.Contains(t, last, "@bob, only @alice, who started this run, or a repository admin can stop it.")

	cid = f.addComment(t, n, "alice", "/core stop")
	f.deliver(t, "issue_comment", "h-3", commentPayload(t, "alice", "User", n, cid, "/core stop", false))
	f.settle(t)
	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, run, "stopped")
	assert.Equal(t, []int64{987}, f.g.CancelledRuns("octo", "hello"), "the workflow run is cancelled")
	assert.Contains(t, statusOf(f, n), "stopped: workflow run 987 cancelled.")
}

// TestStopByAdmin: a repository admin may stop anyone's run.
func TestStopByAdmin(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	f.deliver(t, "issue_comment", "h-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	f.settle(t)
	require.NoError(t, f.g.SetPermission("octo", "hello", "ada", "admin"))
	cid = f.addComment(t, n, "ada", "/core stop")
	f.deliver(t, "issue_comment", "h-2", commentPayload(t, "ada", "User", n, cid, "/core stop", false))
	f.settle(t)
	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, run, "an admin stopped it")
}
