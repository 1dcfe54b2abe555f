package console

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
