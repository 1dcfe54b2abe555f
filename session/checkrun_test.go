package session

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/internal/testkit/openapi"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/state"
)

// requireCheckRun returns the one core/contract check run on the
// commit rep landed, after asserting it completed with conclusion and a
// title that starts with title, for session rep, and that it was made in
// progress before it completed.
func requireCheckRun(t *testing.T, g *ghfake.GitHub, repo string, rep *Report, conclusion, title string) ghfake.CheckRun {
	t.Helper()
	owner, name, _ := strings.Cut(repo, "/")
	var on []ghfake.CheckRun
	for _, cr := range g.CheckRuns(owner, name) {
		if cr.HeadSHA == rep.Commit {
			on = append(on, cr)
		}
	}
	require.Len(t, on, 1, "one core/contract run on %s", rep.Commit)
	cr := on[0]
	assert.Equal(t, land.CheckRunName, cr.Name)
	assert.Equal(t, "completed", cr.Status)
	assert.Equal(t, conclusion, cr.Conclusion)
	assert.True(t, strings.HasPrefix(cr.Title, title), "title %q starts with %q", cr.Title, title)
	assert.Equal(t, rep.ID, cr.ExternalID)
	assert.Contains(t, cr.Summary, "Session `"+rep.ID+"`")

	// The log: made (or, on a re-run, set) in progress, then completed.
	var states []string
	for _, r := range g.Requests() {
		if strings.Contains(r.Path, "/check-runs") && r.Method != http.MethodGet && r.Status < 300 {
			states = append(states, r.Method+" "+checkRunState(t, r.Body))
		}
	}
	require.NotEmpty(t, states)
	assert.Equal(t, "PATCH completed", states[len(states)-1], "%v", states)
	assert.Contains(t, []string{"POST in_progress", "PATCH in_progress"}, states[len(states)-2], "%v", states)
	t.Run("requests valid against GitHub's description", func(t *testing.T) {
		n := openapi.RequireValid(t, openapi.GitHub(t), g)
		assert.Positive(t, n)
	})
	return cr
}

// checkRunState is the status a check run request asks for.
func checkRunState(t *testing.T, body []byte) string {
	t.Helper()
	switch {
	case strings.Contains(string(body), `"status":"completed"`):
		return "completed"
	case strings.Contains(string(body), `"status":"in_progress"`):
		return "in_progress"
	}
	return "?"
}

func TestGitHubCheckRunUnverified(t *testing.T) {
	t.Parallel()
	f := newAppFixture(t)
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: \"hello, world\\n\""),
		llm.ContentReply("tool: done\nsummary: Greet the world"),
	)
	opts := f.options(t, srv)
	opts.Landing.RunURL = "https://github.example/octo/hello/actions/runs/7"
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	cr := requireCheckRun(t, f.g, "octo/hello", rep, "neutral", "UNVERIFIED: no checks ran")
	assert.Contains(t, cr.Summary, "this patch is UNVERIFIED")
	assert.Contains(t, cr.Summary, "[the run](https://github.example/octo/hello/actions/runs/7)")
	assert.Equal(t, "https://github.example/octo/hello/actions/runs/7", cr.DetailsURL)
	assert.Equal(t, "core[bot]", cr.App)
	var sum strings.Builder
	rep.WriteSummary(&sum)
	assert.Contains(t, sum.String(), "check run core/contract: "+cr.HTMLURL)
}
