package ghfake

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	client := g.Client(t, ownerToken) // it sends "Bearer TOKEN"
	req, err := client.NewRequest(http.MethodGet, "ext/token", nil)
	require.NoError(t, err)
	var got map[string]string
	_, err = client.Do(t.Context(), req, &got)
	require.NoError(t, err)
	assert.Equal(t, ownerToken, got["token"], "the token without its scheme")
	g.Record(Request{Method: http.MethodGet, Path: "/ext/page", Status: http.StatusOK})
	reqs := g.Requests()
	assert.Equal(t, "/ext/page", reqs[len(reqs)-1].Path)
	assert.Equal(t, "owner", g.User("owner").Login)
}
