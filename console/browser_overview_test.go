package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/browser"
)

// sentRun is a run the overview test reports, and what the test expects
// the overview to make of it, worked out here rather than by the console.
type sentRun struct {
	id, repo, status, verdict string
	started                   time.Time
	took                      time.Duration
	cost                      *float64
	ending                    string // the chart's series it counts in
	share                     string // held, broken or unverified; "" while it has not ended
}

// kinds are the ways the test's runs end: a status, a contract's verdict
// (or none), the ending it stacks as and its verdict's share.
var kinds = []struct{ status, verdict, ending, share string }{
	{"completed", "held", EndingHeld, "held"},
	{"completed", "none", EndingCompleted, "unverified"},
	{"done", "", EndingCompleted, "unverified"},
	{"failed", "broken", EndingFailed, "broken"},
	{"budget_exhausted", "broken", EndingExhausted, "broken"},
	{"partial", "unjudged", EndingPartial, "unverified"},
	{"cancelled", "", EndingStopped, "unverified"},
	{"completed", "held", EndingHeld, "held"},
	{"active", "", EndingLive, ""},
}

// aMonthOfRuns is 45 runs over the 32 days up to the harness's clock
// (2026-12-01 09:00 UTC): some days with several, some with none, the
// last two days' before the 30-day window; every fourth has no price set
// and one cost $0.
func aMonthOfRuns(now time.Time) []sentRun {
	var out []sentRun
	for i := range 45 {
		k := kinds[i%len(kinds)]
		r := sentRun{
			id: fmt.Sprintf("s-%02d", i), repo: "acme/app", status: k.status, verdict: k.verdict, ending: k.ending, share: k.share,
			started: now.Add(-time.Duration(i*17%32)*24*time.Hour - time.Duration(i%9)*time.Hour),
			took:    time.Duration(i%7+1) * time.Minute,
		}
		if i%5 == 2 {
			r.repo = "acme/lib"
		}
		if i%4 != 3 {
			c := float64(i*37%101) / 100
			r.cost = &c
		}
		out = append(out, r)
	}
	return out
}

func (r sentRun) report() string {
	rep := map[string]any{
		"id": r.id, "repo": r.repo, "status": r.status, "goal": "run " + r.id, "turns": 2,
		"started_at": r.started.Format(time.RFC3339), "ended_at": r.started.Add(r.took).Format(time.RFC3339),
	}
	if r.cost != nil {
		rep["cost_usd"] = *r.cost
	}
	if r.verdict != "" {
		rep["contract"] = map[string]any{"verdict": r.verdict, "checks": []any{}}
	}
	raw, _ := json.Marshal(rep)
	return string(raw)
}

// expected is the overview of runs over days up to now, of repo ("":
// all), as the test works it out.
type expected struct {
	segs     map[string]int    // "day ending" → runs
	spend    map[string]string // day → dollars, every day of the window
	shares   map[string]int
	costly   []string
	runs     int
	durs     []time.Duration
	ended    int
	firstDay string
}

func expect(runs []sentRun, now time.Time, days int, repo string) expected {
	e := expected{segs: map[string]int{}, spend: map[string]string{}, shares: map[string]int{}}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	first := today.AddDate(0, 0, 1-days)
	e.firstDay = first.Format("2006-01-02")
	spent := map[string]float64{}
	for d := first; !d.After(today); d = d.AddDate(0, 0, 1) {
		spent[d.Format("2006-01-02")] = 0
	}
	var priced []sentRun
	for _, r := range runs {
		day := r.started.Format("2006-01-02")
		if _, in := spent[day]; !in || repo != "" && r.repo != repo {
			continue
		}
		e.runs++
		e.segs[day+" "+r.ending]++
		if r.cost != nil {
			spent[day] += *r.cost
			priced = append(priced, r)
		}
		if r.share != "" {
			e.shares[r.share]++
			e.ended++
			e.durs = append(e.durs, r.took)
		}
	}
	for day, usd := range spent {
		e.spend[day] = fmt.Sprintf("%.4f", usd)
	}
	slices.SortFunc(priced, func(a, b sentRun) int {
		if *a.cost != *b.cost {
			if *a.cost > *b.cost {
				return -1
			}
			return 1
		}
		return b.started.Compare(a.started)
	})
	for _, r := range priced[:min(10, len(priced))] {
		e.costly = append(e.costly, r.id)
	}
	slices.Sort(e.durs)
	return e
}

// TestBrowserOverview reports a month of runs through the API, opens the
// overview in Chromium and reads the charts' numbers back from their SVG,
// against what the test reported; it saves screenshots of the whole
// organisation's 30 days and of one repository's 7.
func TestBrowserOverview(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) // the harness's clock
	runs := aMonthOfRuns(now)
	// The bot's own runs: one that sent no report counts; one that did
	// counts once, as its report; one older than the window not at all.
	bot := sentRun{id: "r-bot-1", repo: "acme/lib", status: "done", started: now.Add(-26 * time.Hour), took: 3 * time.Minute,
		cost: new(0.995), ending: EndingCompleted, share: "unverified"}
	h := newHarness(t, sqliteStore(t), func(c *Config) {
		c.BotRuns = botRuns{
			{SessionID: bot.id, Repo: bot.repo, Trigger: TriggerBot, Status: bot.status, StartedAt: bot.started, Duration: bot.took, CostUSD: bot.cost},
			{SessionID: runs[0].id, Repo: runs[0].repo, Trigger: TriggerBot, Status: "done", StartedAt: runs[0].started, CostUSD: new(5.0)},
			{SessionID: "r-bot-old", Repo: "acme/app", Trigger: TriggerBot, Status: "failed", StartedAt: now.AddDate(0, 0, -40), CostUSD: new(7.0)},
		}
	})
	require.Equal(t, now, h.clock.now())
	for _, r := range runs {
		token := h.alice
		if r.repo == "acme/lib" {
			token = h.bob // alice cannot read acme/lib
		}
		status, body := h.call(t, http.MethodPost, "/api/session-runs", token, r.report())
		require.Equal(t, http.StatusCreated, status, string(body))
	}
	ctx := browser.New(t, 90*time.Second)
	h.apps.SignIn("bob")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/login"),
		chromedp.WaitVisible(chromedp.ID("runs")),
		chromedp.Click(chromedp.CSS(`header a[href="/overview"]`)),
		chromedp.WaitVisible(chromedp.ID("runs-chart")),
	), "sign in and open the overview from the nav")
	browser.Screenshot(ctx, t, "overview-30-days")
	runs = append(runs, bot)
	check(t, ctx, expect(runs, now, 30, ""), 30)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/overview?repo=acme/lib&days=7"),
		chromedp.WaitVisible(chromedp.ID("runs-chart")),
	), "one repository's week")
	browser.Screenshot(ctx, t, "overview-lib-7-days")
	lib := expect(runs, now, 7, "acme/lib")
	require.NotZero(t, lib.runs, "the test reports runs of acme/lib this week")
	check(t, ctx, lib, 7)
}

// check reads the overview the browser shows and compares it with want.
func check(t *testing.T, ctx context.Context, want expected, days int) {
	t.Helper()
	read := func(js string, into any) {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(`+js+`)`))
		require.NoError(t, err, js)
		require.NoError(t, json.Unmarshal([]byte(s), into), s)
	}
	var segs [][]any
	read(`[...document.querySelectorAll('#runs-chart rect.seg')].map(r => [r.closest('g').dataset.day + ' ' + r.dataset.ending, +r.dataset.count])`, &segs)
	gotSegs := map[string]int{}
	for _, s := range segs {
		gotSegs[s[0].(string)] = int(s[1].(float64))
	}
	assert.Equal(t, want.segs, gotSegs, "runs a day by ending")
	var bars []string
	read(`[...document.querySelectorAll('#runs-chart g.day')].map(g => g.dataset.day)`, &bars)
	require.Len(t, bars, days, "a bar a day, days without runs too")
	assert.Equal(t, want.firstDay, bars[0])

	var spend [][]string
	read(`[...document.querySelectorAll('#spend-chart rect.spend')].map(r => [r.dataset.day, r.dataset.usd])`, &spend)
	gotSpend := map[string]string{}
	for _, s := range spend {
		gotSpend[s[0]] = s[1]
	}
	assert.Equal(t, want.spend, gotSpend, "spend a day")

	var shares [][]any
	read(`[...document.querySelectorAll('#verdict-chart rect.verdict')].map(r => [r.dataset.verdict, +r.dataset.count])`, &shares)
	gotShares := map[string]int{}
	for _, s := range shares {
		gotShares[s[0].(string)] = int(s[1].(float64))
	}
	assert.Equal(t, want.shares, gotShares, "the verdicts' shares of the ended runs")

	var costly []string
	read(`[...document.querySelectorAll('#costliest tr.run a.goal')].map(a => a.getAttribute('href'))`, &costly)
	var wantLinks []string
	for _, id := range want.costly {
		wantLinks = append(wantLinks, "/runs/"+id)
	}
	assert.Equal(t, wantLinks, costly, "the costliest runs, dearest first, each linking its page")

	var figures map[string]string
	read(`{runs: document.getElementById('total-runs').textContent, median: document.getElementById('median').textContent, p90: document.getElementById('p90').textContent}`, &figures)
	assert.Equal(t, fmt.Sprint(want.runs), figures["runs"])
	assert.Equal(t, quantile(want.durs, 0.5).Round(time.Second).String(), figures["median"])
	assert.Equal(t, quantile(want.durs, 0.9).Round(time.Second).String(), figures["p90"])
}

// quantile interpolates between the two runs nearest q, as the page says
// it does.
func quantile(sorted []time.Duration, q float64) time.Duration {
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + time.Duration((pos-float64(lo))*float64(sorted[hi]-sorted[lo]))
}
