package review

import (
	"context"
	"testing"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/openapi"
	"github.com/coreagent/core/status"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const coreToken, ownerToken = "ghs_ReviewTestCore", "ghp_ReviewTestOwner"

// newPull serves owner/repo with pull request #1 (branch topic) and
// returns the fake, core's client and the pull request's head.
func newPull(t *testing.T) (*ghfake.GitHub, *gh.Client, string) {
	t.Helper()
	g := ghfake.NewGitHub(t)
	g.AddToken(coreToken, "core[bot]")
	g.AddToken(ownerToken, "owner")
	repo := g.MustAddRepo(t, "owner", "repo", map[string]string{"a.txt": "a\n"})
	require.NoError(t, g.SetPermission("owner", "repo", "core[bot]", "write"))
	head, err := repo.Commit(t.Context(), "topic", "change a", map[string]string{"a.txt": "b\n"})
	require.NoError(t, err)
	_, err = g.AddPull(t.Context(), "owner", "repo", ghfake.Pull{Title: "change a", Head: "topic", User: "owner"})
	require.NoError(t, err)
	c, err := gh.New(gh.Credentials{Token: coreToken, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	return g, c, head
}

func TestPostOneReviewPerHead(t *testing.T) {
	t.Parallel()
	g, c, head := newPull(t)
	ctx := context.Background()
	_, updated, err := Post(ctx, c, "owner", "repo", 1, head, "first\n"+status.ReviewMarker(head))
	require.NoError(t, err)
	assert.False(t, updated)
	url, updated, err := Post(ctx, c, "owner", "repo", 1, head, "second\n"+status.ReviewMarker(head))
	require.NoError(t, err)
	assert.True(t, updated, "the second run on the head edits the first's review")
	reviews := g.Reviews("owner", "repo", 1)
	require.Len(t, reviews, 1)
	assert.Equal(t, "second\n"+status.ReviewMarker(head), reviews[0].Body)
	assert.Equal(t, "COMMENTED", reviews[0].State)
	assert.Equal(t, head, reviews[0].CommitID)
	assert.Contains(t, url, "#pullrequestreview-")
	assert.Equal(t, 2, openapi.RequireValid(t, openapi.GitHub(t), g, "/repos/owner/repo/pulls"), "the POST and the PUT match GitHub's description")
	for _, r := range g.Requests() {
		assert.NotContains(t, r.Path, "git-receive-pack", "a review pushes nothing")
		assert.NotContains(t, r.Path, "/git/refs", "a review makes no branch")
		assert.False(t, r.Method == "POST" && r.Path == "/repos/owner/repo/pulls", "a review opens no pull request")
	}
}

func TestPostNewHeadNewReview(t *testing.T) {
	t.Parallel()
	g, c, head := newPull(t)
	ctx := context.Background()
	_, _, err := Post(ctx, c, "owner", "repo", 1, head, "old\n"+status.ReviewMarker(head))
	require.NoError(t, err)
	next, err := g.Repo("owner", "repo").Commit(ctx, "topic", "change a again", map[string]string{"a.txt": "c\n"})
	require.NoError(t, err)
	_, updated, err := Post(ctx, c, "owner", "repo", 1, next, "new\n"+status.ReviewMarker(next))
	require.NoError(t, err)
	assert.False(t, updated, "a new head gets its own review")
	assert.Len(t, g.Reviews("owner", "repo", 1), 2)
}

func TestPostLeavesSomeoneElsesMarkedReview(t *testing.T) {
	t.Parallel()
	g, c, head := newPull(t)
	ctx := context.Background()
	owner, err := gh.New(gh.Credentials{Token: ownerToken, APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	_, err = owner.CreateReview(ctx, "owner", "repo", 1, gh.NewReview{CommitID: head, Body: "planted " + status.ReviewMarker(head)})
	require.NoError(t, err)
	_, updated, err := Post(ctx, c, "owner", "repo", 1, head, "core's\n"+status.ReviewMarker(head))
	require.NoError(t, err)
	assert.False(t, updated)
	reviews := g.Reviews("owner", "repo", 1)
	require.Len(t, reviews, 2)
	assert.Equal(t, "planted "+status.ReviewMarker(head), reviews[0].Body, "another's review is never edited")
	assert.Equal(t, "core[bot]", reviews[1].User)
}
