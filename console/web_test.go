package console

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser is an HTTP client with cookies, signed in to the console as
// login through the testkit's OAuth web flow.
type browser struct {
	h      *harness
	client *http.Client
	csrf   string
}

func (h *harness) signIn(t *testing.T, login string) (*browser, *http.Response) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	b := &browser{h: h, client: &http.Client{Jar: jar}}
	h.g.SignIn(login)
	resp, body := b.get(t, "/login")
	if m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body); m != nil {
		b.csrf = m[1]
	}
	return b, resp
}

func (b *browser) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	resp, err := b.client.Get(b.h.srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func (b *browser) post(t *testing.T, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := b.client.PostForm(b.h.srv.URL+path, form)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

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

func TestSecureCookieBehindTLS(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, h.srv.URL+"/login", nil)
	require.NoError(t, err)
	req.Header.Set("X-Forwarded-Proto", "https")
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.NotEmpty(t, resp.Cookies())
	assert.True(t, resp.Cookies()[0].Secure)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(loc.Query().Get("redirect_uri"), "https://"), loc.String())
}

func TestQueueFormNeedsCSRF(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	b, _ := h.signIn(t, "alice")
	form := url.Values{"repo": {"acme/app"}, "instruction": {"add a test"}}
	resp, _ := b.post(t, "/api/session-queue", form)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "no CSRF token")
	e := h.lastAudit(t)
	assert.Equal(t, "refuse", e.Action)
	assert.Contains(t, e.Reason, "CSRF")
	cmds, err := h.store.Commands(t.Context(), "alice", 0)
	require.NoError(t, err)
	assert.Empty(t, cmds)

	form.Set("csrf", b.csrf)
	resp, body := b.post(t, "/api/session-queue", form)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "/queue", resp.Request.URL.Path)
	assert.Contains(t, body, "add a test")
	assert.Contains(t, body, `<td class="state">queued</td>`)

	status, raw := h.call(t, http.MethodGet, "/api/session-commands", h.alice, nil)
	require.Equal(t, http.StatusOK, status, "the page's instruction is alice's to claim")
	assert.Equal(t, "add a test", command(t, raw).Instruction)
	_, body = b.get(t, "/api/session-queue")
	assert.Contains(t, body, `"state":"claimed"`)
}

func TestRunPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	contract := `,"contract":{"verdict":"pass","checks":[{"name":"unit","command":"go test ./...","base":"fail","final":"pass"}]}`
	h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("with-contract", "succeeded", contract))
	h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("without-contract", "failed", ""))
	b, _ := h.signIn(t, "bob")
	_, body := b.get(t, "/runs")
	assert.Contains(t, body, `href="/runs/with-contract"`)
	assert.Contains(t, body, "without-contract")
	_, body = b.get(t, "/runs/with-contract")
	assert.Contains(t, body, `<span id="verdict">pass</span>`)
	assert.Contains(t, body, "<td>go test ./...</td>")
	resp, body := b.get(t, "/runs/without-contract")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.NotContains(t, body, "Contract")
	assert.Contains(t, body, `id="report"`)
	resp, _ = b.get(t, "/runs/nope")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestForger(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	b, _ := h.signIn(t, "alice")
	_, body := b.get(t, "/forger")
	assert.Contains(t, body, "acme/app")
	assert.Contains(t, body, "acme/lib")
	assert.NotContains(t, body, `"armed">armed</td>`, "nothing armed yet")

	resp, _ := b.post(t, "/forger", url.Values{"repo": {"acme/app"}, "armed": {"true"}})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "no CSRF token")
	assert.Empty(t, h.g.Variables(org, "app")["CORE_FORGE_ENABLED"])

	resp, body = b.post(t, "/forger", url.Values{"repo": {"acme/app"}, "armed": {"true"}, "csrf": {b.csrf}})
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "true", h.g.Variables(org, "app")["CORE_FORGE_ENABLED"], "armed through the App")
	assert.Contains(t, body, `<td class="armed">armed</td>`)
	e := h.lastAudit(t)
	assert.Equal(t, "forger", e.Action)
	assert.Equal(t, "acme/app", e.Target)

	bob, _ := h.signIn(t, "bob")
	resp, body = bob.post(t, "/forger", url.Values{"repo": {"acme/lib"}, "armed": {"true"}, "csrf": {bob.csrf}})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "bob only reads acme/lib")
	assert.Contains(t, body, "needs write access")
	resp, _ = b.post(t, "/forger", url.Values{"repo": {"elsewhere/thing"}, "armed": {"true"}, "csrf": {b.csrf}})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	resp, _ = b.post(t, "/forger", url.Values{"repo": {"acme/app"}, "armed": {"false"}, "csrf": {b.csrf}})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "false", h.g.Variables(org, "app")["CORE_FORGE_ENABLED"], "disarmed")
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
