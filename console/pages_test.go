package console

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

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
