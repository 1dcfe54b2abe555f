package gh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

func TestPullFilesAndCreateReview(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	head, err := repo.Commit(t.Context(), "fix", "fix", map[string]string{"a.txt": "a\nb\n", "n.txt": "new\n"})
	require.NoError(t, err)
	n, err := g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "fix", Head: "fix", User: "alice"})
	require.NoError(t, err)

	files, err := c.PullFiles(t.Context(), "octo", "hello", n)
	require.NoError(t, err)
	assert.Equal(t, []PullFile{
		{Path: "a.txt", Status: "modified", Patch: "@@ -1 +1,2 @@\n a\n+b"},
		{Path: "n.txt", Status: "added", Patch: "@@ -0,0 +1 @@\n+new"},
	}, files)

	url, err := c.CreateReview(t.Context(), "octo", "hello", n, NewReview{
		CommitID: head, Body: "the contract",
		Comments: []DraftComment{{Path: "a.txt", StartLine: 1, Line: 2, Body: "```suggestion\nA\nB\n```"}},
	})
	require.NoError(t, err)
	assert.Contains(t, url, "/octo/hello/pull/1#pullrequestreview-")
	rv := g.Reviews("octo", "hello", n)
	require.Len(t, rv, 1)
	assert.Equal(t, "COMMENTED", rv[0].State)
	assert.Equal(t, []ghfake.ReviewDraftComment{{Path: "a.txt", StartLine: 1, Line: 2, Side: "RIGHT", StartSide: "RIGHT", Body: "```suggestion\nA\nB\n```"}}, rv[0].Comments)

	_, err = c.CreateReview(t.Context(), "octo", "hello", n, NewReview{Body: "x", Comments: []DraftComment{{Path: "z.txt", Line: 1, Body: "b"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "post a review on pull request #1 of octo/hello")
	assert.Contains(t, err.Error(), "Line could not be resolved")
}

func TestReviewsAndUpdateReview(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	head, err := repo.Commit(t.Context(), "fix", "fix", map[string]string{"a.txt": "b\n"})
	require.NoError(t, err)
	n, err := g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "fix", Head: "fix", User: "alice"})
	require.NoError(t, err)
	_, err = c.CreateReview(t.Context(), "octo", "hello", n, NewReview{CommitID: head, Body: "first"})
	require.NoError(t, err)
	list, err := c.Reviews(t.Context(), "octo", "hello", n)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, Review{ID: list[0].ID, User: "core-bot", CommitID: head, Body: "first", State: "COMMENTED"}, list[0])

	url, err := c.UpdateReview(t.Context(), "octo", "hello", n, list[0].ID, "second")
	require.NoError(t, err)
	assert.Contains(t, url, "#pullrequestreview-")
	assert.Equal(t, "second", g.Reviews("octo", "hello", n)[0].Body)

	_, err = c.UpdateReview(t.Context(), "octo", "hello", n, list[0].ID+1000, "third")
	require.ErrorIs(t, err, ErrReviewNotEditable)
	assert.Contains(t, err.Error(), "update review")
	_, err = c.UpdateReview(t.Context(), "octo", "hello", n, list[0].ID, "")
	require.Error(t, err, "a blank body is refused")
	assert.NotErrorIs(t, err, ErrReviewNotEditable)
	assert.Equal(t, "second", g.Reviews("octo", "hello", n)[0].Body)
}
