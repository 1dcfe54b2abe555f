package ghfake

import (
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

// Client is the real go-github client, authenticated with token (none when
// empty), the way core builds it for an Enterprise Server: requests go to
// g.URL + "/api/v3/...". Tests of the double, and of what is built on it,
// speak to it through this.
func (g *GitHub) Client(t testing.TB, token string) *github.Client {
	t.Helper()
	c := github.NewClient(nil)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	c, err := c.WithEnterpriseURLs(g.URL+"/", g.URL+"/")
	require.NoError(t, err)
	return c
}
