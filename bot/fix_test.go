package bot

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	assert.Contains(t, status[0].Body, "working on GitHub Actions")
	assert.Contains(t, status[0].Body, "<!-- core:status:"+runID+" -->")
	assert.Equal(t, ds[0].Inputs["status_comment_id"], itoa(status[0].ID))

	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	require.NotNil(t, run)
	assert.Equal(t, StateRunning, run.State)
}
