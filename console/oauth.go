package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// GET /login: off to GitHub to authorise the App, with a state cookie.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	state := rand.Text()
	setCookie(w, r, stateCookie, state, 10*time.Minute)
	q := url.Values{"client_id": {c.cfg.ClientID}, "redirect_uri": {c.callbackURL(r)}, "state": {state}}
	http.Redirect(w, r, c.cfg.WebURL+"/login/oauth/authorize?"+q.Encode(), http.StatusFound)
}

// callbackURL is where GitHub sends the browser back: the public URL, or
// else this request's host.
func (c *Console) callbackURL(r *http.Request) string {
	if c.cfg.PublicURL != "" {
		return c.cfg.PublicURL + "/oauth/callback"
	}
	scheme := "http"
	if secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/oauth/callback"
}

// GET /oauth/callback?code=&state=: trade the code for the user's token,
// verify it as any bearer is verified, and start a session. The token is
// then dropped: the session holds the login only.
func (c *Console) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ck, err := r.Cookie(stateCookie)
	clearCookie(w, r, stateCookie)
	if err != nil || q.Get("state") == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(q.Get("state"))) != 1 {
		c.refusePage(w, r, http.StatusBadRequest, "", "the sign-in's state does not match this browser's: sign in again from /login")
		return
	}
	if e := q.Get("error"); e != "" {
		c.refusePage(w, r, http.StatusForbidden, "", "GitHub did not authorise the App: "+e+" "+q.Get("error_description"))
		return
	}
	token, err := c.exchange(r.Context(), q.Get("code"), c.callbackURL(r))
	if err != nil {
		c.logFailure(r, err)
		c.refusePage(w, r, http.StatusBadGateway, "", "signing in with GitHub failed; sign in again from /login")
		return
	}
	id, err := c.verify.verify(r.Context(), token)
	switch {
	case err != nil:
		c.logFailure(r, err)
		c.refusePage(w, r, http.StatusBadGateway, "", "could not verify the sign-in with GitHub; try again")
		return
	case id.Kind != TokenUser:
		c.refusePage(w, r, http.StatusForbidden, id.Login, id.Reason)
		return
	}
	if err := c.startSession(w, r, id); err != nil {
		c.logFailure(r, err)
		c.refusePage(w, r, http.StatusInternalServerError, id.Login, "could not start a session; try again")
		return
	}
	_ = c.audit(r.Context(), id.Login, "sign-in", "console", "signed in through GitHub")
	http.Redirect(w, r, "/runs", http.StatusFound)
}

// exchange trades an authorisation code for a user-to-server token.
func (c *Console) exchange(ctx context.Context, code, redirect string) (string, error) {
	form := url.Values{"client_id": {c.cfg.ClientID}, "client_secret": {c.cfg.ClientSecret}, "code": {code}, "redirect_uri": {redirect}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.WebURL+"/login/oauth/access_token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("POST /login/oauth/access_token: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&out); err != nil {
		return "", fmt.Errorf("POST /login/oauth/access_token answered %d, not JSON: %w", resp.StatusCode, err)
	}
	if out.Error != "" {
		return "", fmt.Errorf("%s: %s", out.Error, out.Description)
	}
	if out.AccessToken == "" {
		return "", fmt.Errorf("POST /login/oauth/access_token answered %d without a token", resp.StatusCode)
	}
	return out.AccessToken, nil
}

// POST /logout
func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	if ws := c.form(w, r); ws != nil {
		_ = c.cfg.Store.DeleteSession(r.Context(), ws.IDHash)
		clearCookie(w, r, sessionCookie)
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}
