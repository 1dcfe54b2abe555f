package gh

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/openapi"
)

// TestGitDataMakesACommitAndMovesTheBranch: a blob, a tree, a commit
// with core as author at a given time, a new branch, then a
// fast-forward; a commit that does not descend from the branch's head is
// ErrNotFastForward and leaves the branch as it was.
func TestGitDataMakesACommitAndMovesTheBranch(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	ctx := t.Context()
	start, _, err := repo.Head(ctx, "main")
	require.NoError(t, err)
	blob, err := c.CreateBlob(ctx, "octo", "hello", []byte("b\x00\n"))
	require.NoError(t, err)
	tree, err := c.CreateTree(ctx, "octo", "hello", "", []TreeEntry{{Path: "b.bin", Mode: "100644", SHA: blob}})
	require.NoError(t, err)
	when := time.Date(2026, 12, 5, 6, 0, 0, 0, time.FixedZone("", -5*3600))
	core := Person{Name: "core", Email: "core@users.noreply.github.com", When: when}
	sha, madeTree, err := c.CreateCommit(ctx, "octo", "hello", NewCommit{Message: "m\n", Tree: tree, Parents: []string{start}, Author: core, Committer: core})
	require.NoError(t, err)
	assert.Equal(t, tree, madeTree)
	require.NoError(t, c.MoveBranch(ctx, "octo", "hello", "topic", sha), "a new branch")
	require.NoError(t, c.MoveBranch(ctx, "octo", "hello", "main", sha), "a fast-forward")
	head, _, err := repo.Head(ctx, "main")
	require.NoError(t, err)
	assert.Equal(t, sha, head)

	other, _, err := c.CreateCommit(ctx, "octo", "hello", NewCommit{Message: "other\n", Tree: tree, Parents: []string{start}, Author: core, Committer: core})
	require.NoError(t, err)
	err = c.MoveBranch(ctx, "octo", "hello", "main", other)
	require.ErrorIs(t, err, ErrNotFastForward)
	head, _, err = repo.Head(ctx, "main")
	require.NoError(t, err)
	assert.Equal(t, sha, head, "the branch did not move")

	v, err := c.CommitVerification(ctx, "octo", "hello", sha)
	require.NoError(t, err)
	assert.Equal(t, Verification{Reason: "unsigned"}, v, "a user's token's commits are not signed")
	_, err = c.CommitVerification(ctx, "octo", "hello", "0123456789012345678901234567890123456789")
	assert.Error(t, err)
	t.Run("requests valid against GitHub's description", func(t *testing.T) {
		n := openapi.RequireValid(t, openapi.GitHub(t), g, "/repos/octo/hello/git/")
		assert.Equal(t, 7, n, "a blob, a tree, two commits, a new ref and two moves (one refused)")
	})
}

func TestCreateBlobRefusesOverTheLimit(t *testing.T) {
	t.Parallel()
	c, g, _ := newTestClient(t)
	_, err := c.CreateBlob(t.Context(), "octo", "hello", make([]byte, MaxBlob+1))
	assert.ErrorContains(t, err, "over the Git Data API's limit")
	for _, r := range g.Requests() {
		assert.NotEqual(t, "/repos/octo/hello/git/blobs", r.Path, "nothing was sent")
	}
}
