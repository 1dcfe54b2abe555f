package console

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreListsRunsSince: a window lists every run started in it, past
// the 100 a list otherwise stops at, and a limit still bounds it.
func TestStoreListsRunsSince(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			for i := range 150 {
				started := t0.Add(-time.Duration(i) * time.Hour)
				_, err := s.PutRun(ctx, &Run{SessionID: fmt.Sprintf("s%03d", i), Repo: "acme/app", Trigger: TriggerCLI, Actor: "alice",
					Owner: "user:1", Status: "cancelled", StartedAt: started, ReceivedAt: started, Report: []byte(`{"goal":"Fix the flaky login test","cost_usd":0.37,"landed":true}`)})
				require.NoError(t, err)
			}
			since := t0.Add(-119 * time.Hour)
			got, err := s.ListRuns(ctx, RunFilter{Since: since})
			require.NoError(t, err)
			require.Len(t, got, 120, "the 120 runs started at or after since, not 100 of them")
			assert.Equal(t, "s000", got[0].SessionID, "newest first")
			assert.Equal(t, "s119", got[119].SessionID, "the run started at since is in")
			got, err = s.ListRuns(ctx, RunFilter{Since: since, Limit: 5, Repo: "ACME/App"})
			require.NoError(t, err)
			assert.Len(t, got, 5, "a repository named in any case")
			brief, err := s.ListRuns(ctx, RunFilter{Since: t0, Brief: true})
			require.NoError(t, err)
			require.Len(t, brief, 1)
			assert.Nil(t, brief[0].Report, "a brief list holds no report")
			assert.Equal(t, "Fix the flaky login test", brief[0].Goal, "but what the lists read from it")
			require.NotNil(t, brief[0].CostUSD)
			assert.InDelta(t, 0.37, *brief[0].CostUSD, 1e-9)
			assert.Equal(t, EndingStopped, EndingOf(brief[0]).Key, "and how it ended")
			assert.True(t, detailOf(brief[0]).Landed, "a stopped run's work landed")
			got, err = s.ListRuns(ctx, RunFilter{})
			require.NoError(t, err)
			assert.Len(t, got, 100, "without a window, a list still stops at 100")
		})
	}
}

// TestOverviewPageRefusesBadQueries: a query the page cannot show is
// answered 400 with what was wrong and what to ask instead.
func TestOverviewPageRefusesBadQueries(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	resp, page := (&visitor{h: h, client: &http.Client{}}).get(t, "/overview")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "behind the sign-in")
	assert.Contains(t, page, `id="signin"`)
	assert.NotContains(t, page, "<svg")

	b, _ := h.signIn(t, "bob")
	tests := []struct {
		name, query, want string
	}{
		{name: "a window the page does not offer", query: "days=5", want: `days must be 7, 30 or 90 (the window the overview covers, in days), got &#34;5&#34;.`},
		{name: "not a number", query: "days=month", want: `got &#34;month&#34;`},
		{name: "not a repository", query: "repo=app", want: `repo must be owner/name, got &#34;app&#34;: name one of acme&#39;s repositories, or none for all of them.`},
		{name: "another organisation's", query: "repo=elsewhere/thing&days=7", want: `elsewhere/thing is not in acme: this console holds only acme&#39;s runs.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, page := b.get(t, "/overview?"+tt.query)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Contains(t, page, tt.want)
			assert.NotContains(t, page, "<svg")
		})
	}
	resp, page = b.get(t, "/overview")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, page, `<a href="/overview">Overview</a>`, "the nav links it")
	assert.Contains(t, page, `<a href="/overview?days=30" class="current" aria-current="page">30 days</a>`, "30 days unless asked")
	assert.Equal(t, 3, strings.Count(page, `<svg xmlns="http://www.w3.org/2000/svg"`), "three charts, drawn on the server")
	assert.Contains(t, page, "No priced runs in the window.")
	assert.NotContains(t, page, "<script", "no script")
	resp, page = b.get(t, "/overview?days=90&repo=acme/lib")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 90, strings.Count(page, `<g class="day"`), "a bar a day of 90")
	assert.Contains(t, page, `<a href="/overview?days=7&amp;repo=acme%2Flib">7 days</a>`, "the other windows keep the repository")
}

// TestOverviewSaysWhenTheBotsRunsAreCut: the overview reads the bot's
// newest overviewBotRuns runs; when all of them started in the window,
// older ones there were not read, and the page says so. When the oldest
// read is older than the window, every run of the window was counted.
func TestOverviewSaysWhenTheBotsRunsAreCut(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) // the harness's clock
	for _, tc := range []struct {
		name  string
		runs  int
		older bool // the oldest read started before the window
		cut   bool
	}{
		{name: "more than it reads", runs: overviewBotRuns, cut: true},
		{name: "as many as it reads, the oldest outside the window", runs: overviewBotRuns, older: true},
		{name: "fewer", runs: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bot := make(botRuns, tc.runs)
			for i := range bot {
				bot[i] = &Run{SessionID: fmt.Sprintf("r-bot-%d", i), Repo: "acme/app", Trigger: TriggerBot, Status: "done",
					StartedAt: now.Add(-time.Duration(i) * time.Minute)}
			}
			if tc.older {
				bot[len(bot)-1].StartedAt = now.AddDate(0, 0, -31)
			}
			h := newHarness(t, sqliteStore(t), func(c *Config) { c.BotRuns = bot })
			b, _ := h.signIn(t, "alice")
			resp, page := b.get(t, "/overview?days=30")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			if !tc.cut {
				assert.NotContains(t, page, `id="bot-runs-cut"`)
				return
			}
			assert.Contains(t, page, `id="bot-runs-cut"`)
			assert.Contains(t, page, fmt.Sprintf("only those among its newest %d are counted", overviewBotRuns))
		})
	}
}
