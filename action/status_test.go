package action

import (
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/status"
)

func TestStatusCommentMovesWithTheSession(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	g.AddToken("ghs_status", "core-bot")
	g.MustAddRepo(t, "octo", "hello", map[string]string{"a": "a\n"})
	require.NoError(t, g.SetPermission("octo", "hello", "core-bot", "write"))
	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "x"})
	require.NoError(t, err)
	client, err := gh.New(gh.Credentials{Token: "ghs_status", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	var out strings.Builder
	r := &runner{
		a:      githubactions.New(githubactions.WithGetenv(func(string) string { return "" }), githubactions.WithWriter(&out)),
		t:      trigger{mode: ModeFix},
		status: &statusComment{client: client, owner: "octo", repo: "hello", number: n, runID: "gha-1", workflowRun: 1},
	}
	require.NoError(t, r.status.post(t.Context(), "core is on it."))
	onStep := r.progress(t.Context(), "s1")
	onStep(session.Step{Turn: 3, Tool: "edit_file", Target: "a"}, 40) // every is 0: edits at once
	comments := g.Comments("octo", "hello", n)
	require.Len(t, comments, 1, "the status comment is edited, not posted again")
	assert.Contains(t, comments[0].Body, "turn 3 of at most 40 (edit_file a)")
	assert.Contains(t, comments[0].Body, "<!-- core:status:gha-1 -->")
	assert.Contains(t, comments[0].Body, "<!-- core:workflow-run:1 -->")

	r.every = 1 << 62 // throttled: no edit
	r.progress(t.Context(), "s1")(session.Step{Turn: 4, Tool: "read_file", Target: "b"}, 40)
	assert.NotContains(t, g.Comments("octo", "hello", n)[0].Body, "turn 4")
}

// TestStatusKeepsTheBotsNotes: the Action's new headline keeps what the
// bot added to the comment.
func TestStatusKeepsTheBotsNotes(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	g.AddToken("ghs_status", "core-bot")
	g.MustAddRepo(t, "octo", "hello", map[string]string{"a": "a\n"})
	n, err := g.AddIssue("octo", "hello", ghfake.Issue{Title: "x"})
	require.NoError(t, err)
	client, err := gh.New(gh.Credentials{Token: "ghs_status", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	c := status.Comment{RunID: "r1", Text: "queued.", Notes: []string{"pull request: https://x/pull/2"}}
	id, _, err := client.CreateComment(t.Context(), "octo", "hello", n, c.Body())
	require.NoError(t, err)
	s := &statusComment{client: client, owner: "octo", repo: "hello", number: n, runID: "r1", id: id, workflowRun: 5}
	require.NoError(t, s.post(t.Context(), "core is done."))
	got, ok := status.Parse(g.Comments("octo", "hello", n)[0].Body)
	require.True(t, ok)
	assert.Equal(t, "core is done.", got.Text)
	assert.Equal(t, []string{"pull request: https://x/pull/2"}, got.Notes)
	assert.Equal(t, int64(5), got.WorkflowRun)
}
