package ghapps

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitHubOAuthWebFlow(t *testing.T) {
	t.Parallel()
	g, _ := newAppGitHub(t)
	id, secret, err := g.AppOAuth(testAppID)
	require.NoError(t, err)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	authorize := g.URL + "/login/oauth/authorize?" + url.Values{
		"client_id": {id}, "redirect_uri": {"http://console.test/oauth/callback"}, "state": {"s1"},
	}.Encode()

	resp, err := noFollow.Get(authorize)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "nobody signed in: the sign-in page")

	g.SignIn("owner")
	resp, err = noFollow.Get(authorize)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	back, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "s1", back.Query().Get("state"))
	code := back.Query().Get("code")

	exchange := func(secret string) map[string]string {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, g.URL+"/login/oauth/access_token",
			strings.NewReader(url.Values{"client_id": {id}, "client_secret": {secret}, "code": {code}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out map[string]string
		require.NoError(t, json.Unmarshal(b, &out), string(b))
		return out
	}
	assert.Equal(t, "incorrect_client_credentials", exchange("wrong")["error"])
	tok := exchange(secret)
	require.True(t, strings.HasPrefix(tok["access_token"], "ghu_"), tok)
	assert.Equal(t, "bad_verification_code", exchange(secret)["error"], "a code is good once")
	status, body := getWith(t, g, "/user", tok["access_token"])
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "owner", body["login"])
}
