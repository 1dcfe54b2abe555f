package console

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	b, resp := h.signIn(t, "alice")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "/runs", resp.Request.URL.Path, "signed in, on the Runs page")
	require.NotEmpty(t, b.csrf)
	var session *http.Cookie
	for r := resp; r != nil; r = r.Request.Response {
		for _, c := range r.Cookies() {
			if c.Name == sessionCookie && c.Value != "" {
				session = c
			}
		}
	}
	require.NotNil(t, session, "a session cookie")
	assert.True(t, session.HttpOnly)
	assert.Equal(t, http.SameSiteLaxMode, session.SameSite)
	assert.False(t, session.Secure, "plain HTTP here")
	assert.Equal(t, "sign-in", h.lastAudit(t).Action)

	_, body := b.get(t, "/audit")
	assert.Contains(t, body, "signed in through GitHub")
	resp, _ = b.post(t, "/logout", url.Values{"csrf": {b.csrf}})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, body = b.get(t, "/runs")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "signed out")
	assert.Contains(t, body, "Sign in with GitHub")
}

func TestSignInRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	_, resp := h.signIn(t, "mallory")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "mallory cannot see the App's installation on acme")
	e := h.lastAudit(t)
	assert.Equal(t, "refuse", e.Action)
	assert.Equal(t, "mallory", e.Actor)

	b, _ := h.signIn(t, "")
	resp, _ = b.get(t, "/oauth/callback?code=x&state=forged")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a state this browser did not start")
}

func TestPublicURL(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t), func(c *Config) { c.PublicURL = "https://core.example.com/" })
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(h.srv.URL + "/login")
	require.NoError(t, err)
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "https://core.example.com/oauth/callback", loc.Query().Get("redirect_uri"), "not the request's Host")

	cfg := h.cfg
	cfg.PublicURL = "core.example.com"
	_, err = New(cfg)
	assert.ErrorContains(t, err, "the public URL must be an http(s) URL")
}
