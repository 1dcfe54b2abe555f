package ghfake

import (
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCancelWorkflowRun(t *testing.T) {
	t.Parallel()
	g := NewGitHub(t)
	g.AddToken("tok-w", "writer")
	g.AddToken("tok-r", "reader")
	g.MustAddRepo(t, "o", "r", map[string]string{"a": "a"})
	require.NoError(t, g.SetPermission("o", "r", "writer", "write"))
	require.NoError(t, g.SetPermission("o", "r", "reader", "read"))
	client := func(tok string) *github.Client {
		c, err := github.NewClient(nil).WithAuthToken(tok).WithEnterpriseURLs(g.URL+"/", g.URL+"/")
		require.NoError(t, err)
		return c
	}
	_, err := client("tok-r").Actions.CancelWorkflowRunByID(t.Context(), "o", "r", 55)
	require.Error(t, err, "a reader cannot cancel")
	resp, err := client("tok-w").Actions.CancelWorkflowRunByID(t.Context(), "o", "r", 55)
	if err != nil {
		// go-github reports 202 as an AcceptedError.
		var accepted *github.AcceptedError
		require.ErrorAs(t, err, &accepted)
	}
	_ = resp
	assert.Equal(t, []int64{55}, g.CancelledRuns("o", "r"))
}
