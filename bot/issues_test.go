package bot

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/status"
)

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
