package bot

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// RegisterConfig is what `core bot setup` needs: where the bot will be
// reachable, whose App it is, and where to keep the result.
type RegisterConfig struct {
	// Listen is where the setup page is served, on this machine.
	Listen string
	// URL is the bot's public base URL: GitHub sends webhooks to
	// URL/api/github/hook.
	URL string
	// Org creates the App for an organisation; empty, for the user's
	// account.
	Org string
	// Name is the App's name (GitHub's page lets the user change it).
	Name string
	// WebURL is GitHub's web host (GITHUB_SERVER_URL), APIURL its API.
	WebURL, APIURL string
	// DataDir receives the App's registration (WriteAppFiles).
	DataDir string
	// Out receives what the user must do: the page to open, then how to
	// start the bot.
	Out io.Writer
	// HTTPClient makes the conversion call; nil is the default.
	HTTPClient *http.Client
}

// Manifest is the GitHub App manifest core's bot registers with: exactly
// the permissions and events it needs (app.yml holds the same, for
// registering by hand).
func Manifest(name, botURL, redirectURL string) map[string]any {
	return map[string]any{
		"name":        name,
		"url":         botURL,
		"description": "An autonomous coding agent. /core fix on an issue or pull request; the draft pull request's link comes back.",
		"public":      false,
		"hook_attributes": map[string]any{
			"url":    strings.TrimRight(botURL, "/") + "/api/github/hook",
			"active": true,
		},
		"redirect_url": redirectURL,
		// The console's sign-in (the App's OAuth web flow) comes back here.
		"callback_urls": []string{strings.TrimRight(botURL, "/") + "/oauth/callback"},
		"default_permissions": map[string]string{
			"issues":        "write",
			"pull_requests": "write",
			"checks":        "write", // the core/contract check run
			"contents":      "read",
			"actions":       "write",
			"variables":     "write",
			"metadata":      "read",
		},
		"default_events": []string{"issue_comment", "issues", "pull_request", "workflow_run"},
	}
}

var setupPage = template.Must(template.New("setup").Parse(`<!DOCTYPE html>
<html><head><title>Set up core's GitHub App</title></head><body>
<h1>Set up core's GitHub App</h1>
<p>This registers a GitHub App named <b>{{.Name}}</b> for {{if .Org}}the organisation <b>{{.Org}}</b>{{else}}your account{{end}},
with webhooks sent to <code>{{.Hook}}</code>. GitHub asks you to confirm; then you come back here.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button id="register" type="submit">Create the App on GitHub</button>
</form></body></html>`))

var setupDonePage = template.Must(template.New("done").Parse(`<!DOCTYPE html>
<html><head><title>core's GitHub App is ready</title></head><body>
<h1 id="done">The GitHub App {{.Name}} is ready</h1>
<p>Its id, private key and secrets are in <code>{{.Dir}}</code>.</p>
<p><a id="install" href="{{.Install}}">Install it on your repositories</a>, then start the bot:
<code>CORE_BOT_DATA_DIR={{.Dir}} core bot</code>. You can close this page.</p>
</body></html>`))

// RegisterApp runs GitHub's App manifest flow: it serves a page on cfg.Listen
// that posts core's manifest to GitHub, receives the code on its redirect,
// exchanges it (POST /app-manifests/{code}/conversions), writes the App's
// registration into cfg.DataDir and returns it. It serves until that is
// done or ctx ends.
func RegisterApp(ctx context.Context, cfg RegisterConfig) (*AppFiles, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if HasAppFiles(cfg.DataDir) {
		return nil, fmt.Errorf("%s already holds a GitHub App (%s): remove it, or give another --data-dir", cfg.DataDir, appFile)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", cfg.Listen, err)
	}
	base := "http://" + ln.Addr().String()
	s := &registration{cfg: cfg, base: base, state: randomToken(), done: make(chan *AppFiles, 1)}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(cfg.Out, "open %s/ in your browser to register the App on %s\n", base, cfg.WebURL)
	var app *AppFiles
	select {
	case app = <-s.done:
	case err = <-errc:
	case <-ctx.Done():
		err = ctx.Err()
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	if app == nil {
		return nil, fmt.Errorf("the App was not registered: %w", err)
	}
	fmt.Fprintf(cfg.Out, "registered the GitHub App %s (id %d): %s\n", app.Name, app.AppID, app.HTMLURL)
	fmt.Fprintf(cfg.Out, "its private key and secrets are in %s (0600)\n", cfg.DataDir)
	fmt.Fprintf(cfg.Out, "install it on your repositories: %s\n", app.InstallURL())
	fmt.Fprintf(cfg.Out, "then start the bot:\n  CORE_BOT_DATA_DIR=%s core bot\n", cfg.DataDir)
	return app, nil
}

func (c *RegisterConfig) check() error {
	var errs []string
	if c.Name == "" {
		c.Name = "core"
	}
	if c.WebURL == "" {
		c.WebURL = "https://github.com"
	}
	if c.APIURL == "" {
		c.APIURL = "https://api.github.com"
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	if u, err := url.Parse(c.URL); c.URL == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Sprintf("--url must be the bot's public base URL, e.g. https://core.example.com (webhooks go to URL/api/github/hook), got %q", c.URL))
	}
	for name, v := range map[string]string{"GITHUB_SERVER_URL (--github-url)": c.WebURL, "--api-url": c.APIURL} {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Sprintf("%s must be an http(s) URL, got %q", name, v))
		}
	}
	if c.DataDir == "" {
		errs = append(errs, "CORE_BOT_DATA_DIR (--data-dir) is required: the App's registration is written there")
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// registration is the setup page's server.
type registration struct {
	cfg   RegisterConfig
	base  string
	state string
	done  chan *AppFiles
}

func (s *registration) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/":
		s.page(w)
	case r.Method == http.MethodGet && r.URL.Path == "/callback":
		s.callback(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *registration) page(w http.ResponseWriter) {
	manifest, err := json.Marshal(Manifest(s.cfg.Name, s.cfg.URL, s.base+"/callback"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	action := strings.TrimRight(s.cfg.WebURL, "/") + "/settings/apps/new"
	if s.cfg.Org != "" {
		action = strings.TrimRight(s.cfg.WebURL, "/") + "/organizations/" + url.PathEscape(s.cfg.Org) + "/settings/apps/new"
	}
	action += "?state=" + url.QueryEscape(s.state)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = setupPage.Execute(w, map[string]string{
		"Name": s.cfg.Name, "Org": s.cfg.Org, "Hook": strings.TrimRight(s.cfg.URL, "/") + "/api/github/hook",
		"Action": action, "Manifest": string(manifest),
	})
}

// callback is where GitHub sends the browser back with the code. The state
// must be this setup's own: a forged redirect registers nothing.
func (s *registration) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(s.state)) != 1 {
		http.Error(w, "this link is not from this setup (the state does not match): start again from the setup page", http.StatusForbidden)
		return
	}
	code := q.Get("code")
	if code == "" {
		http.Error(w, "GitHub sent no code: start again from the setup page", http.StatusBadRequest)
		return
	}
	app, err := s.convert(r.Context(), code)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if err := WriteAppFiles(s.cfg.DataDir, app); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = setupDonePage.Execute(w, map[string]string{"Name": app.Name, "Dir": s.cfg.DataDir, "Install": app.InstallURL()})
	select {
	case s.done <- app:
	default:
	}
}

// convert exchanges the manifest flow's code for the App's configuration.
func (s *registration) convert(ctx context.Context, code string) (*AppFiles, error) {
	client, err := github.NewClient(s.cfg.HTTPClient).WithEnterpriseURLs(s.cfg.APIURL, s.cfg.APIURL)
	if err != nil {
		return nil, fmt.Errorf("GitHub API %s: %w", s.cfg.APIURL, err)
	}
	if strings.TrimRight(s.cfg.APIURL, "/") == "https://api.github.com" {
		client = github.NewClient(s.cfg.HTTPClient)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, _, err := client.Apps.CompleteAppManifest(ctx, code)
	if err != nil {
		return nil, fmt.Errorf("exchange the manifest code with GitHub: %w", err)
	}
	if c.GetID() == 0 || c.GetPEM() == "" || c.GetWebhookSecret() == "" {
		return nil, errors.New("GitHub's answer to the manifest code lacks the App's id, key or webhook secret")
	}
	return &AppFiles{
		AppID: c.GetID(), Slug: c.GetSlug(), Name: c.GetName(), Owner: c.GetOwner().GetLogin(), HTMLURL: c.GetHTMLURL(),
		WebhookURL: strings.TrimRight(s.cfg.URL, "/") + "/api/github/hook", ClientID: c.GetClientID(),
		PrivateKey: []byte(c.GetPEM()), WebhookSecret: c.GetWebhookSecret(), ClientSecret: c.GetClientSecret(),
	}, nil
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
