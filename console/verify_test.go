package console

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokensAreVerifiedOnceAndKeptNowhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store, err := Open(t.Context(), filepath.Join(dir, "console.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	h := newHarness(t, store, func(c *Config) { c.TokenTTL = time.Minute })
	userCalls := func() int {
		n := 0
		for _, r := range h.g.Requests() {
			if r.Path == "/user" && r.Header.Get("Authorization") == "Bearer "+h.alice {
				n++
			}
		}
		return n
	}
	for range 3 {
		status, _ := h.call(t, http.MethodGet, "/api/session-runs", h.alice, nil)
		require.Equal(t, http.StatusOK, status)
	}
	assert.Equal(t, 1, userCalls(), "verified on first use, then cached")
	h.clock.advance(2 * time.Minute)
	h.call(t, http.MethodGet, "/api/session-runs", h.alice, nil)
	assert.Equal(t, 2, userCalls(), "asked again once the cache entry expired")

	h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("s1", "succeeded", ""))
	h.call(t, http.MethodPost, "/api/session-commands", h.pat, map[string]any{"repo": "acme/app", "instruction": "x"})
	require.NoError(t, store.Close())
	files, err := filepath.Glob(filepath.Join(dir, "console.db*"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, tok := range []string{h.alice, h.pat} {
			assert.NotContains(t, string(b), tok, "%s holds a token", f)
		}
	}
	assert.NotContains(t, h.log.String(), h.alice)
	assert.NotContains(t, h.log.String(), h.pat)
	assert.True(t, strings.Contains(h.log.String(), "Refused a request"), "refusals are logged, without the token")
}
