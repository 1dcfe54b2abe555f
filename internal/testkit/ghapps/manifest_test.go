package ghapps

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// TestManifestFlow walks the manifest flow as a browser and core do: the
// manifest to GitHub's page, its button, the redirect back with the code
// and the state, and the code's conversion, which works once.
func TestManifestFlow(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	apps := New(g)
	manifest := `{"name":"Core Test","url":"https://core.example.com","redirect_url":"https://core.example.com/back",` +
		`"hook_attributes":{"url":"https://core.example.com/hook"},"default_permissions":{"issues":"write"}}`
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	resp, err := http.PostForm(g.URL+"/organizations/octo-org/settings/apps/new?state=S1", url.Values{"manifest": {manifest}})
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(page))
	m := regexp.MustCompile(`name="token" value="([0-9a-f]+)"`).FindSubmatch(page)
	require.NotNil(t, m, "the page carries its form's token: %s", page)
	assert.Contains(t, string(page), `<span id="owner">octo-org</span>`)

	resp, err = noRedirect.PostForm(g.URL+"/settings/apps/new/create", url.Values{"token": {string(m[1])}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	back, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "core.example.com", back.Host)
	assert.Equal(t, "S1", back.Query().Get("state"))
	code := back.Query().Get("code")
	require.NotEmpty(t, code)

	convert := func() (int, map[string]any) {
		resp, err := http.Post(g.APIURL()+"/app-manifests/"+code+"/conversions", "application/json", strings.NewReader(""))
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return resp.StatusCode, out
	}
	status, app := convert()
	require.Equal(t, http.StatusCreated, status, app)
	created := apps.CreatedApps()
	require.Len(t, created, 1)
	c := created[0]
	assert.True(t, c.Converted)
	assert.Equal(t, "core-test", c.Slug)
	assert.Equal(t, "octo-org", c.Owner)
	assert.Equal(t, map[string]string{"issues": "write"}, c.Manifest.Permissions)
	assert.Equal(t, float64(c.ID), app["id"])
	assert.Equal(t, string(c.PEM), app["pem"])
	assert.Equal(t, c.WebhookSecret, app["webhook_secret"])
	assert.Equal(t, map[string]any{"login": "octo-org", "id": float64(2), "node_id": "", "type": "Organization",
		"site_admin": false, "url": "", "html_url": ""}, app["owner"])

	status, _ = convert()
	assert.Equal(t, http.StatusNotFound, status, "a code converts once")
}

// TestManifestRefused: a manifest GitHub would refuse gets 422.
func TestManifestRefused(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	New(g)
	for _, tc := range []struct{ name, manifest, want string }{
		{"not JSON", "{", "not JSON"},
		{"no url", `{"hook_attributes":{"url":"h"},"redirect_url":"r"}`, "url is required"},
		{"no hook", `{"url":"u","redirect_url":"r"}`, "hook_attributes.url is required"},
		{"no redirect", `{"url":"u","hook_attributes":{"url":"h"}}`, "redirect_url is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.PostForm(g.URL+"/settings/apps/new", url.Values{"manifest": {tc.manifest}})
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
			assert.Contains(t, string(body), tc.want)
		})
	}
}
