package bot

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func statusOf(f *fixture, number int) string {
	var s string
	for _, c := range botComments(f, number) {
		if strings.Contains(c.Body, "<!-- core:status:") {
			s = c.Body
		}
	}
	return s
}

// TestLinkBackAndWorkflowRun: the draft pull request of a dispatched run
// is linked in its status comment; a failed workflow run says so.
func TestLinkBackAndWorkflowRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	f.deliver(t, "issue_comment", "lb-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	f.settle(t)

	opened := payload(t, "pull_request", "opened", map[string]any{
		"pull_request.head.ref": "core-session/20261130-000000-abcdef", "pull_request.html_url": "https://github.example/octo/hello/pull/9",
		"pull_request.body": "Shout.\n\n<!-- core:session:x -->\n<!-- core:issue:" + itoa(int64(n)) + " -->", "number": 9,
	})
	assert.Equal(t, http.StatusOK, f.deliver(t, "pull_request", "lb-2", opened))
	f.settle(t)
	assert.Contains(t, statusOf(f, n), "- pull request: https://github.example/octo/hello/pull/9")
	assert.Contains(t, statusOf(f, n), "running on GitHub Actions", "the headline is not replaced")
	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, run)

	// A second run, whose workflow fails.
	cid = f.addComment(t, n, "alice", "/core fix again")
	f.deliver(t, "issue_comment", "lb-3", commentPayload(t, "alice", "User", n, cid, "/core fix again", false))
	f.settle(t)
	run, err = f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	require.NotNil(t, run)
	done := payload(t, "workflow_run", "completed", map[string]any{
		"workflow_run.event": "workflow_dispatch", "workflow_run.conclusion": "failure",
		"workflow_run.display_title": "core fix " + run.ID, "workflow_run.html_url": "https://github.example/octo/hello/actions/runs/5",
	})
	assert.Equal(t, http.StatusOK, f.deliver(t, "workflow_run", "lb-4", done))
	f.settle(t)
	assert.Contains(t, statusOf(f, n), "- failed: the [workflow run](https://github.example/octo/hello/actions/runs/5) ended failure.")
	got, err := f.store.GetRun(t.Context(), run.ID)
	require.NoError(t, err)
	assert.Equal(t, StateFailed, got.State)
}

// TestFullQueueAnswers503: with a queue of one and one slow worker, a
// burst of deliveries overflows, and the overflow is counted.
func TestFullQueueAnswers503(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.Queue = 1; c.Workers = 1 }, nil)
	n := f.addIssue(t)
	codes := map[int]int{}
	for i := range 40 {
		cid := f.addComment(t, n, "alice", "/core help")
		codes[f.deliver(t, "issue_comment", "q-"+itoa(int64(i)), commentPayload(t, "alice", "User", n, cid, "/core help", false))]++
	}
	assert.Greater(t, codes[http.StatusServiceUnavailable], 0, "codes: %v", codes)
	assert.Greater(t, codes[http.StatusOK], 0, "codes: %v", codes)
	f.settle(t)
}
