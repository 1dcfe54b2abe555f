package console

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spendingBotRuns are bot runs that can say what they cost today.
type spendingBotRuns struct {
	botRuns
	spend DaySpend
}

func (s spendingBotRuns) SpentToday(context.Context) (DaySpend, error) { return s.spend, nil }

// TestCostOnThePages: a report's cost_usd shows on the Runs page, the run
// page and in the API as the report has it; a report without one shows
// "no price set", never $0; the Runs page shows the day's spend of the
// bot's runs against the daily budget.
func TestCostOnThePages(t *testing.T) {
	t.Parallel()
	cost := 5.2
	bot := spendingBotRuns{
		botRuns: botRuns{{SessionID: "r-bot", Repo: "acme/app", Trigger: TriggerBot, Actor: "bob", Status: "done", CostUSD: &cost}},
		spend:   DaySpend{Budget: 20, ByRepo: map[string]float64{"acme/app": 5.2, "acme/web": 0.125}},
	}
	h := newHarness(t, sqliteStore(t), func(c *Config) { c.BotRuns = bot })
	h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("priced", "budget_exhausted", `,"cost_usd":1.23456`))
	h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("unpriced", "done", ""))
	b, _ := h.signIn(t, "bob")
	_, page := b.get(t, "/runs")
	assert.Contains(t, page, `<td class="num cost">$1.2346</td>`)
	assert.Contains(t, page, `<td class="num cost"><span class="none">no price set</span></td>`)
	assert.Contains(t, page, `<td class="num cost">$5.2000</td>`, "the bot's record of its run")
	assert.NotContains(t, page, "$0.0000")
	assert.Contains(t, page, "<h2>Today's spend (UTC)</h2>")
	assert.Contains(t, page, `<tr><td>acme/app</td><td class="num">$5.2000</td><td class="num">$20.0000</td></tr>`)
	assert.Contains(t, page, `<tr><td>acme/web</td><td class="num">$0.1250</td><td class="num">$20.0000</td></tr>`)
	_, page = b.get(t, "/runs/priced")
	assert.Contains(t, page, `<dd id="cost">$1.2346</dd>`)
	_, page = b.get(t, "/runs/unpriced")
	assert.Contains(t, page, `<dd id="cost"><span class="none">no price set</span></dd>`)

	status, body := h.call(t, http.MethodGet, "/api/session-runs", h.alice, "")
	require.Equal(t, http.StatusOK, status, string(body))
	var list struct {
		Runs []Run `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(body, &list))
	costs := map[string]*float64{}
	for _, r := range list.Runs {
		costs[r.SessionID] = r.CostUSD
	}
	require.NotNil(t, costs["priced"])
	assert.InDelta(t, 1.23456, *costs["priced"], 1e-12)
	assert.Nil(t, costs["unpriced"], "unknown is absent")
}
