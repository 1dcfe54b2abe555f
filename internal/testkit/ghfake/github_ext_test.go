package ghfake

import (
	"encoding/json"
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
	client := ghClient(t, g, "ghs_app")
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
	_, resp, err = ghClient(t, g, "ghs_old").Repositories.Get(ctx, "owner", "repo")
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a token past its expiry")

	g.ExpireToken(ownerToken)
	_, _, err = ghClient(t, g, ownerToken).Users.Get(ctx, "")
	require.NoError(t, err, "ExpireToken leaves a token that does not expire alone")
}

func TestGitHubExtensionReads(t *testing.T) {
	t.Parallel()
	g, r := newTestGitHub(t, nil)
	g.MustAddRepo(t, "owner", "alpha", nil)
	g.MustAddRepo(t, "stranger", "theirs", nil)
	var names []string
	for _, r := range g.ReposOf("OWNER") {
		names = append(names, r.Name())
	}
	assert.Equal(t, []string{"alpha", "repo"}, names, "by name, the owner in any letter case")
	assert.Positive(t, r.ID())
	assert.Equal(t, r.ID(), r.Wire().(*wireRepo).ID)

	assert.True(t, g.SeesAccount("Owner", "owner"), "the account itself")
	assert.True(t, g.SeesAccount("core[bot]", "owner"), "a role on one of its repositories")
	assert.False(t, g.SeesAccount("reader", "owner"))
	assert.False(t, g.SeesAccount("owner", "stranger"))

	require.NoError(t, r.RaiseRole("reader", "write"))
	require.NoError(t, r.RaiseRole("reader", "read"))
	g.mu.Lock()
	role := r.roleLocked("reader")
	g.mu.Unlock()
	assert.Equal(t, "write", role, "RaiseRole never lowers a role")
	assert.ErrorContains(t, r.RaiseRole("reader", "boss"), `unknown role "boss"`)

	g.HandleAPI("GET /ext/token", func(c *Call) { c.JSON(http.StatusOK, map[string]string{"token": c.Token()}) })
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, g.APIURL()+"/ext/token", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "token "+ownerToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var got map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
	assert.Equal(t, ownerToken, got["token"], "the token without its scheme")
	g.Record(Request{Method: http.MethodGet, Path: "/ext/page", Status: http.StatusOK})
	reqs := g.Requests()
	assert.Equal(t, "/ext/page", reqs[len(reqs)-1].Path)
	assert.Equal(t, "owner", g.User("owner").Login)
}
