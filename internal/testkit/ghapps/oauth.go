package ghapps

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// The web flow of a GitHub App's user authorisation, on the web host (URL,
// not APIURL): GET /login/oauth/authorize sends the browser back to the
// redirect_uri with a code and the state, as GitHub does once its user has
// signed in and authorised the app; POST /login/oauth/access_token trades
// the code, with the app's client id and secret, for a user-to-server
// token. Who is signed in to the double's web pages is set by SignIn.

type oauthCode struct {
	app         int64
	login       string
	redirectURI string
}

// SignIn makes login the user signed in to the double's web pages: the
// authorize page approves as that user. An empty login signs out.
func (a *Apps) SignIn(login string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.browserLogin = login
}

// serveOAuthPages serves the OAuth web flow's pages, and reports whether the request was
// for one of them.
func (a *Apps) serveOAuthPages(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/login/oauth/authorize":
		a.authorize(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/login/device/code":
		a.deviceCode(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/login/oauth/access_token":
		a.accessToken(w, r)
	default:
		return false
	}
	return true
}

// GET /login/oauth/authorize?client_id=&redirect_uri=&state=
func (a *Apps) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	app := a.appByClientLocked(q.Get("client_id"))
	login := a.browserLogin
	a.mu.Unlock()
	a.gh.Record(ghfake.Request{Method: r.Method, Path: r.URL.Path, Query: q, Header: r.Header.Clone(), Login: login, Status: http.StatusFound})
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case app == nil:
		http.Error(w, "404 page not found: no application has client_id "+q.Get("client_id"), http.StatusNotFound)
		return
	case err != nil || redirect.Scheme == "" || redirect.Host == "":
		http.Error(w, "The redirect_uri MUST match the registered callback URL for this application.", http.StatusBadRequest)
		return
	case login == "":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>Sign in to GitHub</title><h1>Sign in to GitHub to continue to %s</h1>", html.EscapeString(app.slug))
		return
	}
	code := rand.Text()[:20]
	a.mu.Lock()
	if a.oauthCodes == nil {
		a.oauthCodes = make(map[string]oauthCode)
	}
	a.oauthCodes[code] = oauthCode{app: app.id, login: login, redirectURI: q.Get("redirect_uri")}
	a.mu.Unlock()
	back := redirect.Query()
	back.Set("code", code)
	if s := q.Get("state"); s != "" {
		back.Set("state", s)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (a *Apps) appByClientLocked(clientID string) *appState {
	for _, app := range a.apps {
		if clientID != "" && app.clientID == clientID {
			return app
		}
	}
	return nil
}

// POST /login/oauth/access_token with client_id, client_secret, code (and
// redirect_uri) as a form or query. GitHub answers 200 even for a refusal,
// with an error field; JSON when the request accepts it, else a form.
func (a *Apps) accessToken(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f := r.Form
	a.gh.Record(ghfake.Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Status: http.StatusOK})
	if f.Get("grant_type") == deviceGrant {
		a.deviceToken(w, r)
		return
	}
	answer := url.Values{}
	a.mu.Lock()
	app := a.appByClientLocked(f.Get("client_id"))
	code, ok := a.oauthCodes[f.Get("code")]
	switch {
	case app == nil || f.Get("client_secret") != app.clientSecret:
		answer.Set("error", "incorrect_client_credentials")
		answer.Set("error_description", "The client_id and/or client_secret passed are incorrect.")
	case !ok || code.app != app.id || (f.Get("redirect_uri") != "" && f.Get("redirect_uri") != code.redirectURI):
		answer.Set("error", "bad_verification_code")
		answer.Set("error_description", "The code passed is incorrect or expired.")
	default:
		delete(a.oauthCodes, f.Get("code"))
		answer.Set("access_token", a.userTokenLocked(app.id, code.login))
		answer.Set("token_type", "bearer")
		answer.Set("scope", "")
	}
	a.mu.Unlock()
	if e := answer.Get("error"); e != "" {
		answer.Set("error_uri", "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#"+strings.ReplaceAll(e, "_", "-"))
	}
	flat := map[string]any{}
	for k := range answer {
		flat[k] = answer.Get(k)
	}
	writeOAuth(w, r, flat)
}

// writeOAuth answers as GitHub's OAuth endpoints do: 200 even for a
// refusal, JSON when the request accepts it, else a form.
func writeOAuth(w http.ResponseWriter, r *http.Request, answer map[string]any) {
	if strings.Contains(r.Header.Get("Accept"), "json") {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(answer)
		return
	}
	form := url.Values{}
	for k, v := range answer {
		form.Set(k, fmt.Sprint(v))
	}
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	_, _ = w.Write([]byte(form.Encode()))
}
