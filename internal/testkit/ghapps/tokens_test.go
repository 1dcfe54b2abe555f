package ghapps

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func getWith(t *testing.T, g *double, path, token string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, g.APIURL()+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestGitHubTokenKinds(t *testing.T) {
	t.Parallel()
	g, _ := newAppGitHub(t)
	install, err := g.InstallationToken(7)
	require.NoError(t, err)
	user, err := g.AddUserToken(testAppID, "owner")
	require.NoError(t, err)
	g.AddToken("ghp_personal", "owner")
	tests := []struct {
		name, path, token string
		want              int
		check             func(t *testing.T, body map[string]any)
	}{
		{name: "installation token on /user", path: "/user", token: install, want: http.StatusForbidden},
		{name: "user token on /user", path: "/user", token: user, want: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			assert.Equal(t, "owner", b["login"])
		}},
		{name: "user token lists its app's installations", path: "/user/installations", token: user, want: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			assert.EqualValues(t, 1, b["total_count"])
		}},
		{name: "personal token cannot list installations", path: "/user/installations", token: "ghp_personal", want: http.StatusForbidden},
		{name: "installation token lists its repositories", path: "/installation/repositories", token: install, want: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			assert.EqualValues(t, 2, b["total_count"], "owner/repo and owner/secret")
		}},
		{name: "user token cannot list installation repositories", path: "/installation/repositories", token: user, want: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := getWith(t, g, tt.path, tt.token)
			assert.Equal(t, tt.want, status)
			if tt.check != nil {
				tt.check(t, body)
			}
		})
	}
}
