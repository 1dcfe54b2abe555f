package console

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/browser"
)

// TestBrowserRunPages looks at the Runs page and a run's page as a person
// does, in Chromium, and saves both as screenshots (see browser.Screenshot):
// a run of each ending, each with its own words and colour (only a
// failure is red), and an exhausted budget's top-up.
func TestBrowserRunPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t), func(c *Config) { c.BotRuns = botRuns{dispatched()} })
	for _, r := range []string{
		report("s-landed", "done", landedFields),
		report("s-failed", "failed", failedFields),
		report("s-summary", "partial", summaryFields),
		report("s-plain", "completed", ""),
		report("s-exhausted", "budget_exhausted", exhaustedFields),
		report("s-stopped", "cancelled", `,"landed":true,"branch":"core-session/s-stopped"`),
	} {
		status, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, r)
		require.Equal(t, http.StatusCreated, status, string(body))
	}
	ctx := browser.New(t, 90*time.Second)
	h.apps.SignIn("bob")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/login"),
		chromedp.WaitVisible(chromedp.ID("runs")),
	), "sign in and see the Runs page")
	browser.Screenshot(ctx, t, "runs")

	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err, sel)
		return s
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		require.NoError(t, err, js)
		return s
	}
	for _, e := range []struct{ id, class, word, background string }{
		{"s-landed", "badge ok end-held", "completed, contract held", "rgb(26, 127, 55)"},
		{"s-plain", "badge ok end-completed", "completed", "rgb(218, 251, 225)"},
		{"s-exhausted", "badge warn end-exhausted", "budget exhausted", "rgb(255, 241, 229)"},
		{"s-stopped", "badge plain end-stopped", "stopped, work landed", "rgb(246, 248, 250)"},
		{"s-summary", "badge warn end-partial", "partial", "rgb(255, 248, 197)"},
		{"s-failed", "badge bad end-failed", "failed", "rgb(255, 235, 233)"},
		{"r-bot-9", "badge busy end-live", "working", "rgb(221, 244, 255)"},
	} {
		badge := `tr.run[data-id="` + e.id + `"] .status .badge`
		assert.Equal(t, e.word, text(badge), e.id)
		assert.Equal(t, e.class, eval(`document.querySelector('`+badge+`').className`), e.id)
		assert.Equal(t, e.background, eval(`getComputedStyle(document.querySelector('`+badge+`')).backgroundColor`), e.id)
	}
	const failed = `tr.run[data-id="s-failed"]`
	assert.Contains(t, text(failed+` .goal`), "Upgrade the parser", "the goal")
	assert.Equal(t, "failed", text(failed+` .status .badge`))
	assert.Equal(t, "rgb(255, 235, 233)", eval(`getComputedStyle(document.querySelector('`+failed+` .status .badge')).backgroundColor`),
		"a failure is red, and says so in words")
	assert.Contains(t, text(failed+` .why`), "infrastructure: the model endpoint answered 503")
	assert.Equal(t, "no price set", text(failed+` .cost`), "no price set is not $0")
	const landed = `tr.run[data-id="s-landed"]`
	assert.Equal(t, "held", text(landed+` .contract .badge`))
	assert.Equal(t, "$0.3700", text(landed+` .cost`))
	assert.Contains(t, text(landed+` .started`), "2026-12-01 08:00 UTC")
	assert.Contains(t, text(landed+` .started`), "took 2m0s")
	assert.Equal(t, h.g.URL+"/acme/app/issues/12", eval(`document.querySelector('tr.run[data-id="r-bot-9"] .links a').href`),
		"a bot run links its issue")
	assert.Equal(t, "https://github.example/acme/app/actions/runs/555",
		eval(`[...document.querySelectorAll('tr.run[data-id="r-bot-9"] .links a')].map(a => a.href).find(h => h.includes('/actions/runs/'))`),
		"and its workflow run")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(landed+` a.goal`)),
		chromedp.WaitVisible(chromedp.ID("timeline")),
	), "open the landed run")
	browser.Screenshot(ctx, t, "run")
	assert.Equal(t, "Fix the flaky login test", text(`#goal`))
	assert.Contains(t, text(`#summary`), "Made the login test wait for the server.")
	assert.Equal(t, "3 files changed, +40 −12", text(`#diffstat`))
	assert.Equal(t, "held", text(`#verdict`))
	assert.Equal(t, "4", eval(`String(document.querySelectorAll('#timeline tr.step').length)`), "a row a turn")
	assert.Equal(t, h.g.URL+"/acme/app/tree/core-session/s-landed",
		eval(`[...document.querySelectorAll('#links a')].map(a => a.href).find(h => h.includes('/tree/'))`))
	body := text(`body`)
	assert.NotContains(t, body, `"diff_stat"`, "no raw JSON in sight")
	assert.Equal(t, "false", eval(`String(document.querySelector('#report').checkVisibility())`), "the JSON is folded away")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#raw summary`)),
		chromedp.WaitVisible(chromedp.ID("report")),
	), "one click shows the JSON")
	assert.Contains(t, text(`#report`), `"diff_stat"`)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/runs/s-failed"),
		chromedp.WaitVisible(chromedp.ID("failure")),
	), "a failed run")
	browser.Screenshot(ctx, t, "run-failed")
	assert.Equal(t, "infrastructure: the model endpoint answered 503 six times in a row (retry 6/6)", text(`#failure`))
	assert.Equal(t, "no price set", text(`#cost`))
	assert.Equal(t, "0", eval(`String(document.querySelectorAll('#timeline').length)`), "no turns, no timeline")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/runs/s-exhausted"),
		chromedp.WaitVisible(chromedp.ID("exhausted")),
	), "a run whose budget ran out")
	browser.Screenshot(ctx, t, "run-exhausted")
	assert.Equal(t, "rgb(255, 241, 229)", eval(`getComputedStyle(document.getElementById('exhausted')).backgroundColor`), "amber, not red")
	assert.Equal(t, "1", eval(`String(document.querySelectorAll('#topup #topup-usd').length)`), "with its top-up")
	assert.Equal(t, "0", eval(`String(document.querySelectorAll('.err').length)`), "and no red box")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/runs/no-such-run"),
		chromedp.WaitVisible(chromedp.ID("error")),
	), "a run that is not there")
	browser.Screenshot(ctx, t, "not-found")
	assert.Contains(t, text(`#error`), `There is no run "no-such-run" here.`)
	header := text(`header`)
	assert.Contains(t, header, "bob")
	assert.Contains(t, header, "Sign out")
	assert.NotContains(t, header, "Sign in")
}
