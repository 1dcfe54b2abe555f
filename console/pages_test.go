package console

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldContract is a report's contract (contract.Contract) with one check the
// session fixed.
const heldContract = `,"contract":{"verdict":"held","baseline_gates_nothing":false,"checks":[{"command":["go","test","./..."],"source":"user","baseline":{"exit":1,"passed":false,"seconds":2.5,"sandboxed":true},"result":{"exit":0,"passed":true,"seconds":2.1,"sandboxed":true},"verdict":"fixed"}],"timeout_seconds":300}`

func TestRunPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("with-contract", "succeeded", heldContract))
	h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("without-contract", "failed", ""))
	b, _ := h.signIn(t, "bob")
	_, body := b.get(t, "/runs")
	assert.Contains(t, body, `href="/runs/with-contract"`)
	assert.Contains(t, body, "without-contract")
	_, body = b.get(t, "/runs/with-contract")
	assert.Contains(t, body, `<span id="verdict" class="badge ok">held</span>`)
	assert.Contains(t, body, "<td><code>go test ./...</code></td>")
	assert.Contains(t, body, "<td>fail, exit 1 (2.5s)</td><td>pass (2.1s)</td>", "the check on the start commit, then on the result")
	assert.Contains(t, body, `<td class="verdict">fixed</td>`)
	resp, body := b.get(t, "/runs/without-contract")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.NotContains(t, body, "Contract")
	assert.Contains(t, body, `id="report"`)
	resp, _ = b.get(t, "/runs/nope")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// botRuns is the bot's record of its runs, as the bot hands it over.
type botRuns []*Run

func (b botRuns) RecentRuns(_ context.Context, limit int) ([]*Run, error) {
	return b[:min(limit, len(b))], nil
}

func TestBotRunsShowWithoutReport(t *testing.T) {
	t.Parallel()
	dispatched := &Run{SessionID: "r-bot-1", Repo: "acme/app", Trigger: TriggerBot, Actor: "bob", Status: "running",
		StartedAt: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)}
	reported := &Run{SessionID: "s-both", Repo: "acme/app", Trigger: TriggerBot, Actor: "bob", Status: "running"}
	h := newHarness(t, sqliteStore(t), func(c *Config) { c.BotRuns = botRuns{dispatched, reported} })
	status, body := h.call(t, http.MethodPost, "/api/session-runs", h.install, report("s-both", "succeeded", ""))
	require.Equal(t, http.StatusCreated, status, string(body))

	b, _ := h.signIn(t, "alice")
	_, page := b.get(t, "/runs")
	assert.Contains(t, page, `href="/runs/r-bot-1"`)
	assert.Equal(t, 1, strings.Count(page, `href="/runs/s-both"`), "a bot run that reported shows once")
	_, page = b.get(t, "/runs?who=alice")
	assert.NotContains(t, page, "r-bot-1", "filtered out")
	resp, page := b.get(t, "/runs/r-bot-1")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, page, "The bot ran this; no report was sent.")
	_, page = b.get(t, "/runs/s-both")
	assert.Contains(t, page, `id="report"`, "the report wins over the bot's record")
}
