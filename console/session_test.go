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

// visitor is an HTTP client with cookies, signed in to the console as
// login through the testkit's OAuth web flow.
type visitor struct {
	h      *harness
	client *http.Client
	csrf   string
}

func (h *harness) signIn(t *testing.T, login string) (*visitor, *http.Response) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	b := &visitor{h: h, client: &http.Client{Jar: jar}}
	h.apps.SignIn(login)
	resp, body := b.get(t, "/login")
	if m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body); m != nil {
		b.csrf = m[1]
	}
	return b, resp
}

func (b *visitor) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	resp, err := b.client.Get(b.h.srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func (b *visitor) post(t *testing.T, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := b.client.PostForm(b.h.srv.URL+path, form)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
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
