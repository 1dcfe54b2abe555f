package ghfake

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitHubExpiringToken(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	require.NoError(t, r.RaiseRole("app[bot]", "write"))
	g.AddExpiringToken("ghs_app", "app[bot]", time.Now().Add(time.Hour))
	ctx := t.Context()
	client := g.Client(t, "ghs_app")
	_, resp, err := client.Users.Get(ctx, "")
	require.Error(t, err, "GET /user refuses a token that expires, as GitHub does installation tokens")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	repo, _, err := client.Repositories.Get(ctx, "owner", "repo")
	require.NoError(t, err)
	assert.True(t, repo.GetPermissions()["push"])

	g.ExpireToken("ghs_app")
	_, resp, err = client.Repositories.Get(ctx, "owner", "repo")
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, "Bad credentials", errorResponse(t, err).Message)

	g.AddExpiringToken("ghs_old", "app[bot]", time.Now().Add(-time.Second))
	_, resp, err = g.Client(t, "ghs_old").Repositories.Get(ctx, "owner", "repo")
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a token past its expiry")

	g.ExpireToken(ownerToken)
	_, _, err = g.Client(t, ownerToken).Users.Get(ctx, "")
	require.NoError(t, err, "ExpireToken leaves a token that does not expire alone")
}

// TestGitHubSetUserID: an id SetUserID gives a login is the one the double
// names it by from then on, for GET /user and a comment's author alike,
// whatever the login's letter case; other logins keep their derived ids.
func TestGitHubSetUserID(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	ctx := t.Context()
	derived := g.User("owner").ID
	n, err := g.AddIssue("owner", "repo", Issue{Title: "t"})
	require.NoError(t, err)
	_, err = g.AddComment("owner", "repo", n, Comment{User: "owner", Body: "hi"})
	require.NoError(t, err)

	g.SetUserID("Owner", derived+1)
	me, _, err := g.Client(t, ownerToken).Users.Get(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, derived+1, me.GetID())
	cs, _, err := g.Client(t, ownerToken).Issues.ListComments(ctx, "owner", "repo", n, nil)
	require.NoError(t, err)
	require.Len(t, cs, 1)
	assert.Equal(t, derived+1, cs[0].GetUser().GetID(), "the comment's author is the account that holds the login now")
	assert.Equal(t, userID("reader"), g.User("reader").ID)
}
