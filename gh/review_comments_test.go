package gh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/openapi"
)

func TestReviewComments(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	ctx := t.Context()
	head, err := repo.Commit(ctx, "fix", "fix", map[string]string{"a.txt": "a\nb\n"})
	require.NoError(t, err)
	n, err := g.AddPull(ctx, "octo", "hello", ghfake.Pull{Title: "fix", Head: "fix", User: "alice"})
	require.NoError(t, err)
	require.NoError(t, g.AddReviewThread("octo", "hello", n, ghfake.ReviewThread{Comments: []ghfake.ReviewComment{{User: "alice", Path: "a.txt", Line: 2, Body: "hers"}}}))

	mine, err := c.CreateReviewComment(ctx, "octo", "hello", n, head, DraftComment{Path: "a.txt", Line: 2, Body: "mine"})
	require.NoError(t, err)
	assert.Equal(t, PullComment{ID: mine.ID, User: "core-bot", Path: "a.txt", Line: 2, CommitID: head, Body: "mine"}, mine)
	_, err = c.CreateReviewComment(ctx, "octo", "hello", n, head, DraftComment{Path: "a.txt", Line: 9, Body: "off the diff"})
	assert.ErrorContains(t, err, "Line could not be resolved")

	rv, url, err := c.SubmitReview(ctx, "octo", "hello", n, NewReview{CommitID: head, Body: "r", Comments: []DraftComment{{Path: "a.txt", Line: 1, Body: "in a review"}}})
	require.NoError(t, err)
	assert.Equal(t, Review{ID: rv.ID, User: "core-bot", CommitID: head, Body: "r", State: "COMMENTED"}, rv)
	assert.Contains(t, url, "#pullrequestreview-")
	list, err := c.ReviewComments(ctx, "octo", "hello", n)
	require.NoError(t, err)
	require.Len(t, list, 3, "a review's comments are listed with the others")
	assert.Equal(t, []string{"alice", "core-bot", "core-bot"}, []string{list[0].User, list[1].User, list[2].User})
	assert.Equal(t, PullComment{ID: list[2].ID, User: "core-bot", Path: "a.txt", Line: 1, CommitID: head, Body: "in a review"}, list[2])

	require.NoError(t, c.EditReviewComment(ctx, "octo", "hello", mine.ID, "edited"))
	err = c.EditReviewComment(ctx, "octo", "hello", list[0].ID, "not mine")
	require.ErrorIs(t, err, ErrCommentNotEditable, "someone else's comment")
	assert.ErrorContains(t, err, "Resource not accessible by integration")
	require.ErrorIs(t, c.EditReviewComment(ctx, "octo", "hello", 1, "gone"), ErrCommentNotEditable)
	require.ErrorIs(t, c.DeleteReviewComment(ctx, "octo", "hello", list[0].ID), ErrCommentNotEditable)
	require.NoError(t, c.DeleteReviewComment(ctx, "octo", "hello", list[2].ID))

	left := g.ReviewComments("octo", "hello", n)
	require.Len(t, left, 2)
	assert.Equal(t, []string{"hers", "edited"}, []string{left[0].Body, left[1].Body})
	t.Run("requests valid against GitHub's description", func(t *testing.T) {
		got := openapi.RequireValid(t, openapi.GitHub(t), g, "/repos/octo/hello/pulls/")
		assert.Equal(t, 6, got, "two comments, a review and three edits (a delete has no body)")
	})
}
