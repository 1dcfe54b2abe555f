package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/state"
)

// TestGitHubActionsMayNotOpenPulls: when the repository does not let
// GitHub Actions open pull requests, the workflow's token pushes the work
// and the run fails as the user's setting to change: the error names the
// setting and where the work is, and nothing is lost.
func TestGitHubActionsMayNotOpenPulls(t *testing.T) {
	t.Parallel()
	f := newFixtureAs(t, "github-actions[bot]")
	f.repo.ForbidActionsPulls()
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: \"hello, world\\n\""),
		llm.ContentReply("tool: done\nsummary: Greet the world"),
	)
	opts := f.options(t, srv)
	opts.Goal.Prompt = "greet the world"
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Failed, rep.Status, "%+v", rep)
	assert.Equal(t, state.FailConfiguration, rep.FailureKind, "the repository's setting, not an outage")
	branch := "core-session/" + rep.ID
	assert.Contains(t, rep.Error, `Workflow permissions → "Allow GitHub Actions to create and approve pull requests"`)
	assert.Contains(t, rep.Error, "the work is on branch "+branch+": open its pull request at "+f.repo.HTMLURL()+"/compare/main..."+branch+"?expand=1")
	sha, ok, err := f.repo.Head(t.Context(), branch)
	require.NoError(t, err)
	require.True(t, ok, "the work was pushed")
	assert.Equal(t, rep.Commit, sha)
	assert.Empty(t, f.g.Pulls("octo", "hello"))
}
