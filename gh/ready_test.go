package gh

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

func TestMarkReadyForReview(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	_, err := repo.Commit(t.Context(), "fix", "fix", map[string]string{"b.txt": "b\n"})
	require.NoError(t, err)
	n, err := g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "fix", Head: "fix", User: "core-bot", Draft: true})
	require.NoError(t, err)
	pr, err := c.PullRequest(t.Context(), "octo", "hello", n)
	require.NoError(t, err)
	require.True(t, pr.Draft)
	require.NotEmpty(t, pr.NodeID, "the REST answer carries the GraphQL id")

	require.NoError(t, c.MarkReadyForReview(t.Context(), pr.NodeID))
	pr, err = c.PullRequest(t.Context(), "octo", "hello", n)
	require.NoError(t, err)
	assert.False(t, pr.Draft)
	var calls int
	for _, r := range g.Requests() {
		if r.Path == "/api/graphql" {
			calls++
			assert.Equal(t, http.MethodPost, r.Method)
			assert.Equal(t, "core-bot", r.Login)
		}
	}
	assert.Equal(t, 1, calls)

	require.NoError(t, c.ConvertToDraft(t.Context(), pr.NodeID))
	pr, err = c.PullRequest(t.Context(), "octo", "hello", n)
	require.NoError(t, err)
	assert.True(t, pr.Draft, "a draft again")

	err = c.MarkReadyForReview(t.Context(), "PR_nope")
	assert.ErrorContains(t, err, "GraphQL: Could not resolve to a node with the global id of 'PR_nope'")
	assert.ErrorContains(t, c.MarkReadyForReview(t.Context(), ""), "no node id")
}

func TestEditPullRequest(t *testing.T) {
	t.Parallel()
	c, g, repo := newTestClient(t)
	_, err := repo.Commit(t.Context(), "fix", "fix", map[string]string{"b.txt": "b\n"})
	require.NoError(t, err)
	n, err := g.AddPull(t.Context(), "octo", "hello", ghfake.Pull{Title: "[checks failing] fix", Head: "fix", User: "core-bot", Draft: true})
	require.NoError(t, err)
	require.NoError(t, c.EditPullRequest(t.Context(), "octo", "hello", n, "fix", "all green"))
	pr, err := c.PullRequest(t.Context(), "octo", "hello", n)
	require.NoError(t, err)
	assert.Equal(t, "fix", pr.Title)
	assert.Equal(t, "all green", pr.Body)
}
