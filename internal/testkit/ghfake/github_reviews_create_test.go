package ghfake

import (
	"net/http"
	"os/exec"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newForkPull adds a pull request from the fork mallory/repo that changes
// line 12 of a.txt (of 20) and adds b.txt.
func newForkPull(t *testing.T) (*GitHub, int, string) {
	t.Helper()
	lines := ""
	for i := 1; i <= 20; i++ {
		lines += string(rune('a'-1+i)) + "\n"
	}
	g, _ := newTestGitHub(t, map[string]string{"a.txt": lines})
	fork := g.MustAddRepo(t, "mallory", "repo", nil, ForkOf("owner/repo"))
	changed := lines[:22] + "L\n" + lines[24:]
	head, err := fork.Commit(t.Context(), "patch", "p", map[string]string{"a.txt": changed, "b.txt": "new\n"})
	require.NoError(t, err)
	n, err := g.AddPull(t.Context(), "owner", "repo", Pull{Title: "from a fork", Head: "patch", HeadRepo: "mallory/repo", User: "mallory"})
	require.NoError(t, err)
	return g, n, head
}

func TestForkPullHeadInBase(t *testing.T) {
	t.Parallel()
	g, n, head := newForkPull(t)
	out, err := exec.CommandContext(t.Context(), "git", "-C", g.Repo("owner", "repo").Dir(), "rev-parse", "refs/pull/1/head").Output()
	require.NoError(t, err, "the base repository holds the fork's head, as on GitHub")
	assert.Equal(t, head+"\n", string(out))
	c := g.Client(t, writerToken)
	pr, _, err := c.PullRequests.Get(t.Context(), "owner", "repo", n)
	require.NoError(t, err)
	assert.Equal(t, "mallory/repo", pr.GetHead().GetRepo().GetFullName())
	assert.Equal(t, head, pr.GetHead().GetSHA())
}

func TestListPullFiles(t *testing.T) {
	t.Parallel()
	g, n, _ := newForkPull(t)
	files, _, err := g.Client(t, writerToken).PullRequests.ListFiles(t.Context(), "owner", "repo", n, nil)
	require.NoError(t, err)
	require.Len(t, files, 2)
	assert.Equal(t, "a.txt", files[0].GetFilename())
	assert.Equal(t, "modified", files[0].GetStatus())
	assert.Equal(t, 1, files[0].GetAdditions())
	assert.Equal(t, "@@ -9,7 +9,7 @@ h\n i\n j\n k\n-l\n+L\n m\n n\n o", files[0].GetPatch())
	assert.Equal(t, "b.txt", files[1].GetFilename())
	assert.Equal(t, "added", files[1].GetStatus())
}

func TestCreateReview(t *testing.T) {
	t.Parallel()
	comment := func(path string, start, line int) *github.DraftReviewComment {
		c := &github.DraftReviewComment{Path: github.String(path), Line: github.Int(line), Side: github.String("RIGHT"), Body: github.String("```suggestion\nx\n```")}
		if start != 0 {
			c.StartLine, c.StartSide = github.Int(start), github.String("RIGHT")
		}
		return c
	}
	tests := []struct {
		name     string
		event    string
		comments []*github.DraftReviewComment
		want     string // the error, or "" for 200
	}{
		{name: "a line of the diff", event: "COMMENT", comments: []*github.DraftReviewComment{comment("a.txt", 0, 12)}},
		{name: "lines of one hunk", event: "COMMENT", comments: []*github.DraftReviewComment{comment("a.txt", 9, 15), comment("b.txt", 0, 1)}},
		{name: "a line outside the diff", event: "COMMENT", comments: []*github.DraftReviewComment{comment("a.txt", 0, 3)}, want: "Line could not be resolved"},
		{name: "a range starting outside", event: "COMMENT", comments: []*github.DraftReviewComment{comment("a.txt", 2, 12)}, want: "Start line could not be resolved"},
		{name: "a file the pull request does not change", event: "COMMENT", comments: []*github.DraftReviewComment{comment("c.txt", 0, 1)}, want: "Line could not be resolved"},
		{name: "no body, no comments", event: "COMMENT", want: "Review body can't be blank"},
		{name: "a bad event", event: "SHOUT", want: "Validation Failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, n, head := newForkPull(t)
			body := ""
			if tt.comments != nil {
				body = "the contract"
			}
			rv, resp, err := g.Client(t, writerToken).PullRequests.CreateReview(t.Context(), "owner", "repo", n, &github.PullRequestReviewRequest{
				Body: &body, Event: &tt.event, Comments: tt.comments,
			})
			if tt.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
				assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
				assert.Empty(t, g.Reviews("owner", "repo", n), "nothing is created")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "COMMENTED", rv.GetState())
			assert.Equal(t, head, rv.GetCommitID())
			assert.Contains(t, rv.GetHTMLURL(), "/owner/repo/pull/1#pullrequestreview-")
			got := g.Reviews("owner", "repo", n)
			require.Len(t, got, 1)
			assert.Equal(t, "core[bot]", got[0].User)
			assert.Len(t, got[0].Comments, len(tt.comments))
			assert.Equal(t, tt.comments[0].GetLine(), got[0].Comments[0].Line)
			assert.Equal(t, tt.comments[0].GetStartLine(), got[0].Comments[0].StartLine)
		})
	}
}
