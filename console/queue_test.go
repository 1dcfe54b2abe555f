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
	bob, _ := h.signIn(t, "bob")
	require.NotEqual(t, b.csrf, bob.csrf, "each session has its own token")
	form := url.Values{"repo": {"acme/app"}, "instruction": {"add a test"}}
	for _, tc := range []struct {
		name, csrf string
	}{
		{"no token", ""},
		{"a wrong token", "not-the-token"},
		{"another session's token", bob.csrf},
		{"the token with one character changed", b.csrf[:len(b.csrf)-1] + string(b.csrf[len(b.csrf)-1]^1)},
		{"a prefix of the token", b.csrf[:len(b.csrf)/2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sent := url.Values{"repo": form["repo"], "instruction": form["instruction"]}
			if tc.csrf != "" {
				sent.Set("csrf", tc.csrf)
			}
			resp, _ := b.post(t, "/api/session-queue", sent)
			assert.Equal(t, http.StatusForbidden, resp.StatusCode)
			e := h.lastAudit(t)
			assert.Equal(t, "refuse", e.Action)
			assert.Contains(t, e.Reason, "CSRF")
			cmds, err := h.store.Commands(t.Context(), "alice", 0)
			require.NoError(t, err)
			assert.Empty(t, cmds, "a refused post queues nothing")
		})
	}

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
