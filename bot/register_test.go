package bot

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/browser"
	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
)

// startSetup runs Setup against the testkit GitHub and returns the setup
// page's URL and the channel Setup's result arrives on.
func startSetup(t *testing.T, g *ghfake.GitHub, dir, org string) (string, <-chan setupResult) {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan setupResult, 1)
	go func() {
		app, err := RegisterApp(ctx, RegisterConfig{
			Listen: "127.0.0.1:0", URL: "https://core.example.com", Org: org, Name: "core-test",
			WebURL: g.URL, APIURL: g.APIURL(), DataDir: dir, Out: pw,
		})
		pw.Close()
		done <- setupResult{app, err}
	}()
	t.Cleanup(cancel)
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	url := strings.Fields(line)[1]
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), line)
	return url, done
}

type setupResult struct {
	app *AppFiles
	err error
}

// TestSetupInChromium registers the App as a person would: the setup page
// in a real browser, GitHub's page (the testkit's), back to core, done.
func TestRegisterInChromium(t *testing.T) {
	g := ghfake.NewGitHub(t)
	apps := ghapps.New(g)
	dir := filepath.Join(t.TempDir(), "data")
	url, done := startSetup(t, g, dir, "octo-org")
	ctx := browser.New(t, 60*time.Second)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.Click(chromedp.ID("register")),
		chromedp.WaitVisible(chromedp.ID("create")),
	))
	owner, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("owner")))
	require.NoError(t, err)
	hook, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("hook")))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("create")),
		chromedp.WaitVisible(chromedp.ID("done")),
	))
	install, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.ID("install"), "href"))
	require.NoError(t, err)
	installHref := install.Value
	assert.Equal(t, "octo-org", owner, "the manifest went to the organisation's page")
	assert.Equal(t, "https://core.example.com/api/github/hook", hook)

	res := testkit.Receive(t, done, "RegisterApp to return")
	require.NoError(t, res.err)
	created := apps.CreatedApps()
	require.Len(t, created, 1)
	c := created[0]
	assert.True(t, c.Converted)
	assert.Equal(t, c.ID, res.app.AppID)
	assert.Equal(t, "octo-org", res.app.Owner)
	assert.Equal(t, g.URL+"/apps/core-test/installations/new", installHref)
	assert.Equal(t, map[string]string{"issues": "write", "pull_requests": "write", "checks": "write", "contents": "read", "actions": "write", "variables": "write", "metadata": "read"}, c.Manifest.Permissions)
	assert.ElementsMatch(t, []string{"issue_comment", "issues", "pull_request", "workflow_run"}, c.Manifest.Events)
	assert.True(t, strings.HasPrefix(c.Manifest.RedirectURL, url), "GitHub sends the browser back to this setup")

	// The registration is on disk, private, and is what GitHub handed out.
	for _, name := range []string{appFile, appKeyFile, appSecretsFile} {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), name)
	}
	got, ok, err := ReadAppFiles(dir)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, c.PEM, got.PrivateKey)
	assert.Equal(t, c.WebhookSecret, got.WebhookSecret)
	assert.Equal(t, c.ClientSecret, got.ClientSecret)
	assert.Equal(t, c.ClientID, got.ClientID)

	// core bot started on that directory needs no other setting, and its
	// key authenticates as the App.
	cfg := Config{DataDir: dir}
	require.NoError(t, cfg.FillFromAppFiles())
	require.NoError(t, cfg.Validate())
	tr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, cfg.AppID, cfg.PrivateKey)
	require.NoError(t, err)
	tr.BaseURL = g.APIURL()
	resp, err := (&http.Client{Transport: tr}).Get(g.APIURL() + "/app")
	require.NoError(t, err)
	defer resp.Body.Close()
	var app struct {
		ID int64 `json:"id"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&app))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, cfg.AppID, app.ID)
}

func TestRegisterRefusesForgedCallback(t *testing.T) {
	t.Parallel()
	g := ghfake.NewGitHub(t)
	dir := filepath.Join(t.TempDir(), "data")
	url, _ := startSetup(t, g, dir, "")
	resp, err := http.Get(url + "callback?code=stolen&state=guessed")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, string(body), "the state does not match")
	assert.False(t, HasAppFiles(dir), "a forged redirect writes nothing")
	for _, r := range g.Requests() {
		assert.NotContains(t, r.Path, "app-manifests", "a forged redirect exchanges nothing")
	}
}

func TestRegisterNeverReplacesAnApp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := &AppFiles{AppID: 7, PrivateKey: []byte("key"), WebhookSecret: "s"}
	require.NoError(t, WriteAppFiles(dir, first))
	err := WriteAppFiles(dir, &AppFiles{AppID: 8})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already holds a GitHub App")
	got, ok, err := ReadAppFiles(dir)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, int64(7), got.AppID)

	_, err = RegisterApp(t.Context(), RegisterConfig{Listen: "127.0.0.1:0", URL: "https://core.example.com", DataDir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already holds a GitHub App")
}

func TestRegisterConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  RegisterConfig
		want string
	}{
		{name: "no url", cfg: RegisterConfig{DataDir: "d"}, want: "--url must be the bot's public base URL"},
		{name: "no scheme", cfg: RegisterConfig{URL: "core.example.com", DataDir: "d"}, want: `got "core.example.com"`},
		{name: "no data dir", cfg: RegisterConfig{URL: "https://core.example.com"}, want: "CORE_BOT_DATA_DIR (--data-dir) is required"},
		{name: "bad web url", cfg: RegisterConfig{URL: "https://x", DataDir: "d", WebURL: "github.com"}, want: "GITHUB_SERVER_URL (--github-url) must be an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := RegisterApp(t.Context(), tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestAppYAMLMatchesManifest keeps app.yml, for registering by hand, the
// same as the manifest setup sends.
func TestAppYAMLMatchesManifest(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../app.yml")
	require.NoError(t, err)
	var y struct {
		Permissions map[string]string `yaml:"default_permissions"`
		Events      []string          `yaml:"default_events"`
		Public      bool              `yaml:"public"`
		Callbacks   []string          `yaml:"callback_urls"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &y))
	m := Manifest("core", "https://x", "https://x/cb")
	assert.Equal(t, m["default_permissions"], y.Permissions)
	assert.Equal(t, m["default_events"], y.Events)
	assert.Equal(t, m["public"], y.Public)
	assert.Equal(t, []string{"https://core.example.com/oauth/callback"}, Manifest("core", "https://core.example.com", "x")["callback_urls"])
	assert.Equal(t, []string{"https://core.example.com/oauth/callback"}, y.Callbacks)
}
