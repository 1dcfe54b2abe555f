package ghapps

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// The GitHub App manifest flow
// (https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest):
// a page POSTs a form field "manifest" to /settings/apps/new?state=S (or
// /organizations/ORG/settings/apps/new); GitHub shows a page to create the
// App; creating it redirects to the manifest's redirect_url with ?code=C&state=S;
// POST /app-manifests/C/conversions (no credentials) turns the code into
// the App's id, keys and secrets, once, within an hour.

// Manifest is a GitHub App manifest, as the manifest flow received it.
type Manifest struct {
	Name           string            `json:"name"`
	URL            string            `json:"url"`
	Description    string            `json:"description"`
	Public         bool              `json:"public"`
	RedirectURL    string            `json:"redirect_url"`
	CallbackURLs   []string          `json:"callback_urls"`
	SetupURL       string            `json:"setup_url"`
	HookAttributes map[string]any    `json:"hook_attributes"`
	Permissions    map[string]string `json:"default_permissions"`
	Events         []string          `json:"default_events"`
}

// CreatedApp is an App made through the manifest flow.
type CreatedApp struct {
	ID            int64
	Slug          string
	Owner         string // the organisation, or "" for the user's account
	Manifest      Manifest
	ClientID      string
	ClientSecret  string
	WebhookSecret string
	PEM           []byte
	Converted     bool // its code was exchanged
}

type manifestState struct {
	pending map[string]*pendingManifest // confirm token -> manifest waiting for the button
	codes   map[string]*manifestCode    // code -> app
	apps    []*CreatedApp
}

type pendingManifest struct {
	manifest Manifest
	raw      string
	state    string
	owner    string
}

type manifestCode struct {
	app     *CreatedApp
	expires time.Time
}

// CreatedApps returns the Apps made through the manifest flow, oldest
// first. The result is a copy.
func (g *Apps) CreatedApps() []CreatedApp {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]CreatedApp, len(g.manifests.apps))
	for i, a := range g.manifests.apps {
		out[i] = *a
	}
	return out
}

// serveManifestPages serves the App manifest flow's pages, and reports whether
// the request was for one.
func (g *Apps) serveManifestPages(w http.ResponseWriter, r *http.Request) bool {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/settings/apps/new":
		g.newAppPage(w, r, "")
	case r.Method == http.MethodPost && len(segs) == 5 && segs[0] == "organizations" && segs[2] == "settings" && segs[3] == "apps" && segs[4] == "new":
		g.newAppPage(w, r, segs[1])
	case r.Method == http.MethodPost && r.URL.Path == "/settings/apps/new/create":
		g.createAppFromManifest(w, r)
	default:
		return false
	}
	return true
}

var newAppTemplate = template.Must(template.New("new").Parse(`<!DOCTYPE html>
<html><head><title>Create GitHub App</title></head><body>
<h1>Create GitHub App</h1>
<p>Owner: <span id="owner">{{if .Owner}}{{.Owner}}{{else}}your account{{end}}</span></p>
<form method="post" action="/settings/apps/new/create">
<label>GitHub App name <input id="name" name="name" value="{{.Name}}"></label>
<p>Webhook URL: <span id="hook">{{.Hook}}</span></p>
<input type="hidden" name="token" value="{{.Token}}">
<button id="create" type="submit">Create GitHub App for {{.Name}}</button>
</form></body></html>`))

// newAppPage receives a manifest and shows the page where the App is
// created, as GitHub does; a manifest GitHub would refuse gets 422.
func (g *Apps) newAppPage(w http.ResponseWriter, r *http.Request, owner string) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	raw := r.PostForm.Get("manifest")
	var m Manifest
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		http.Error(w, "Invalid GitHub App configuration: the manifest is not JSON", http.StatusUnprocessableEntity)
		return
	}
	hook, _ := m.HookAttributes["url"].(string)
	switch {
	case m.URL == "":
		http.Error(w, "Invalid GitHub App configuration: url is required", http.StatusUnprocessableEntity)
		return
	case hook == "":
		http.Error(w, "Invalid GitHub App configuration: hook_attributes.url is required", http.StatusUnprocessableEntity)
		return
	case m.RedirectURL == "":
		http.Error(w, "Invalid GitHub App configuration: redirect_url is required", http.StatusUnprocessableEntity)
		return
	}
	token := randomHex(16)
	g.mu.Lock()
	if g.manifests.pending == nil {
		g.manifests.pending = map[string]*pendingManifest{}
	}
	g.manifests.pending[token] = &pendingManifest{manifest: m, raw: raw, state: r.URL.Query().Get("state"), owner: owner}
	g.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = newAppTemplate.Execute(w, map[string]string{"Owner": owner, "Name": m.Name, "Hook": hook, "Token": token})
}

// createAppFromManifest is the page's button: it registers the App and
// redirects to the manifest's redirect_url with the code and the state.
func (g *Apps) createAppFromManifest(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	p := g.manifests.pending[r.PostForm.Get("token")]
	delete(g.manifests.pending, r.PostForm.Get("token"))
	g.mu.Unlock()
	if p == nil {
		http.Error(w, "this form has expired: start again", http.StatusUnprocessableEntity)
		return
	}
	if name := strings.TrimSpace(r.PostForm.Get("name")); name != "" {
		p.manifest.Name = name
	}
	id := g.gh.NextID()
	pemKey, err := g.AddApp(id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	app := &CreatedApp{
		ID: id, Slug: slugify(p.manifest.Name), Owner: p.owner, Manifest: p.manifest,
		ClientID: "Iv1." + randomHex(8), ClientSecret: randomHex(20), WebhookSecret: randomHex(20), PEM: pemKey,
	}
	code := randomHex(20)
	g.mu.Lock()
	if g.manifests.codes == nil {
		g.manifests.codes = map[string]*manifestCode{}
	}
	g.manifests.codes[code] = &manifestCode{app: app, expires: time.Now().Add(time.Hour)}
	g.manifests.apps = append(g.manifests.apps, app)
	g.mu.Unlock()
	to, err := url.Parse(p.manifest.RedirectURL)
	if err != nil {
		http.Error(w, "bad redirect_url", http.StatusUnprocessableEntity)
		return
	}
	q := to.Query()
	q.Set("code", code)
	if p.state != "" {
		q.Set("state", p.state)
	}
	to.RawQuery = q.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

// convertManifest is POST /app-manifests/{code}/conversions: the code,
// once and within the hour, becomes the App's configuration.
func (g *Apps) convertManifest(c *ghfake.Call) {
	g.mu.Lock()
	mc := g.manifests.codes[c.Param("code")]
	delete(g.manifests.codes, c.Param("code"))
	var app CreatedApp
	if mc != nil {
		mc.app.Converted = true
		app = *mc.app
	}
	g.mu.Unlock()
	if mc == nil || time.Now().After(mc.expires) {
		c.Fail(http.StatusNotFound, "Not Found")
		return
	}
	owner := ghfake.WireUser{Login: "octocat", ID: 1, Type: "User"}
	if app.Owner != "" {
		owner = ghfake.WireUser{Login: app.Owner, ID: 2, Type: "Organization"}
	}
	now := time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
	c.JSON(http.StatusCreated, map[string]any{
		"id": app.ID, "slug": app.Slug, "node_id": fmt.Sprintf("A_%d", app.ID), "owner": owner,
		"name": app.Manifest.Name, "description": app.Manifest.Description, "external_url": app.Manifest.URL,
		"html_url": g.gh.URL + "/apps/" + app.Slug, "created_at": now, "updated_at": now,
		"permissions": app.Manifest.Permissions, "events": app.Manifest.Events,
		"client_id": app.ClientID, "client_secret": app.ClientSecret, "webhook_secret": app.WebhookSecret,
		"pem": string(app.PEM),
	})
}

func slugify(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
