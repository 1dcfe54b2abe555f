package console

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
