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

// TestLinkBack: the draft pull request of a dispatched run is added to its
// status comment, under what the Action wrote.
func TestLinkBack(t *testing.T) {
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
	assert.Contains(t, statusOf(f, n), "working on GitHub Actions", "the headline is not replaced")
	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, run)

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
