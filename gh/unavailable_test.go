package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// TestUnavailable: what the real client returns from the testkit GitHub in
// an outage (5xx, a closed server, a connection cut) says GitHub is
// unavailable; what a wrong request gets (404, 401) does not.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		outage func(t *testing.T, g *ghfake.GitHub) (apiURL string)
		repo   string
		token  string
		want   bool
	}{
		{name: "500", want: true, outage: failing(http.StatusInternalServerError)},
		{name: "502", want: true, outage: failing(http.StatusBadGateway)},
		{name: "503", want: true, outage: failing(http.StatusServiceUnavailable)},
		{name: "a closed server", want: true, outage: func(t *testing.T, g *ghfake.GitHub) string {
			dead := httptest.NewServer(http.NotFoundHandler())
			dead.Close()
			return dead.URL + "/api/v3"
		}},
		{name: "a connection cut before the answer", want: true, outage: func(t *testing.T, g *ghfake.GitHub) string {
			cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
			}))
			t.Cleanup(cut.Close)
			return cut.URL + "/api/v3"
		}},
		{name: "a repository that does not exist", repo: "missing"},
		{name: "a refused token", token: "ghp_wrong"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := ghfake.NewGitHub(t)
			g.AddToken("ghp_right", "octo")
			g.MustAddRepo(t, "octo", "hello", map[string]string{"a": "a\n"})
			api := g.APIURL()
			if tt.outage != nil {
				api = tt.outage(t, g)
			}
			token := tt.token
			if token == "" {
				token = "ghp_right"
			}
			repo := tt.repo
			if repo == "" {
				repo = "hello"
			}
			c, err := New(Credentials{Token: token, APIURL: api}, nil)
			require.NoError(t, err)
			_, err = c.Repo(t.Context(), "octo", repo)
			require.Error(t, err)
			assert.Equal(t, tt.want, Unavailable(err), "%v", err)
			assert.Equal(t, tt.want, Unavailable(fmt.Errorf("start: %w", err)), "wrapped: %v", err)
		})
	}
	assert.False(t, Unavailable(nil))
	assert.False(t, Unavailable(context.Canceled), "the caller stopped: nobody's outage")
	assert.False(t, Unavailable(errors.New("branch \"x\" not found in octo/hello")))
}

func failing(status int) func(t *testing.T, g *ghfake.GitHub) string {
	return func(_ *testing.T, g *ghfake.GitHub) string {
		g.FailAPI(status)
		return g.APIURL()
	}
}
