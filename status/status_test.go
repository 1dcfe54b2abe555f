package status

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommentRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    Comment
	}{
		{name: "bare", c: Comment{RunID: "r1", Text: "queued."}},
		{name: "everything", c: Comment{RunID: "r2-ab", Text: "core is done: https://x/pull/3 (verified; 4 turns).\nsecond line",
			Notes: []string{"pull request: https://x/pull/3", "the workflow run failed"}, RunURL: "https://x/actions/runs/9", WorkflowRun: 9, Cost: "0.1234"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := tt.c.Body()
			assert.Contains(t, body, Marker(tt.c.RunID))
			got, ok := Parse(body)
			require.True(t, ok)
			assert.Equal(t, tt.c, got)
		})
	}
	_, ok := Parse("no marker here")
	assert.False(t, ok)
}

// TestNotesSurviveANewHeadline: a writer that replaces the headline keeps
// what the other added.
func TestNotesSurviveANewHeadline(t *testing.T) {
	t.Parallel()
	c := Comment{RunID: "r1", Text: "running."}
	c.AddNote("pull request: https://x/pull/3")
	c.AddNote("pull request: https://x/pull/3")
	got, _ := Parse(c.Body())
	got.Text = "core is done: verified."
	again, _ := Parse(got.Body())
	assert.Equal(t, []string{"pull request: https://x/pull/3"}, again.Notes)
	assert.Equal(t, "core is done: verified.", again.Text)
}

func TestMarkers(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "<!-- core:status:r1 -->", Marker("r1"))
	assert.Equal(t, 12, IssueIn("body\n"+IssueMarker(12)+"\n"))
	assert.Equal(t, 0, IssueIn("<!-- core:issue:x -->"))
	assert.Equal(t, int64(987), WorkflowRunIn(WorkflowRunMarker(987)))
	cost, ok := CostIn("text\n" + CostMarker("1.2500"))
	assert.True(t, ok)
	assert.InDelta(t, 1.25, cost, 1e-9)
	_, ok = CostIn("no price set: no marker")
	assert.False(t, ok)
	assert.Equal(t, "core-session/abc", SessionBranch("abc"))
	assert.True(t, strings.HasPrefix(SessionBranch("abc"), BranchPrefix))
	assert.Equal(t, "r20261201-ab12", RunIDInName(RunName("fix", "r20261201-ab12")))
	assert.Equal(t, "r1", RunIDInName(RunName("resolve", "r1")))
	assert.Equal(t, "r2", RunIDInName(RunName("review", "r2")), "a review run dispatched by the bot")
	assert.Equal(t, "", RunIDInName("core forge r1"))
	assert.Equal(t, "", RunIDInName("CI"))
}

func TestFindingMarker(t *testing.T) {
	t.Parallel()
	m := FindingMarker("0123456789ab")
	assert.Equal(t, "<!-- core:finding:0123456789ab -->", m)
	for _, tc := range []struct{ name, body, want string }{
		{"ends the body", "claim\n\n" + m + "\n", "0123456789ab"},
		{"the whole body", m, "0123456789ab"},
		{"quoted above the end", "```\n" + m + "\n```\nsaid by a test", ""},
		{"inside a line", "see " + m, ""},
		{"not a key", "x\n<!-- core:finding:xyz -->", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, FindingIn(tc.body)) })
	}
}

// TestWorkflowRunName: core's workflow names its runs the way the bot
// reads them.
func TestWorkflowRunName(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", ".github", "workflows", "core.yml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "\nrun-name: "+RunNameTemplate+"\n")
	expanded := strings.NewReplacer("${{ inputs.mode }}", "fix", "${{ inputs.run_id }}", "r42-beef").Replace(RunNameTemplate)
	assert.Equal(t, "r42-beef", RunIDInName(expanded))
}
