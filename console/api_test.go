package console

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigEndpoint(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	status, body := h.call(t, http.MethodGet, "/api/config", "", nil)
	require.Equal(t, http.StatusOK, status)
	var cfg map[string]any
	require.NoError(t, json.Unmarshal(body, &cfg))
	assert.Equal(t, h.console.cfg.ClientID, cfg["client_id"])
	assert.Equal(t, h.g.URL, cfg["web_url"])
	assert.NotContains(t, string(body), h.console.cfg.ClientSecret)
}
