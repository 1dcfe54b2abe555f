package overview

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endings are the console's keys, in its stacking order.
var endings = []string{"held", "completed", "exhausted", "stopped", "partial", "lost", "failed", "live"}

var today = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func window(days int, repo string) Window {
	return Window{Days: days, Today: today, Repo: repo, Endings: endings, Live: "live"}
}

func usd(f float64) *float64 { return &f }

func at(daysAgo int, hour int) time.Time {
	return time.Date(2026, 12, 1-daysAgo, hour, 0, 0, 0, time.UTC)
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	s := func(ds ...int) []time.Duration {
		out := make([]time.Duration, len(ds))
		for i, d := range ds {
			out[i] = time.Duration(d) * time.Second
		}
		return out
	}
	tests := []struct {
		name      string
		sorted    []time.Duration
		q         float64
		want      time.Duration
		wantSlice []time.Duration
	}{
		{name: "none is zero", sorted: nil, q: 0.5, want: 0},
		{name: "one is itself", sorted: s(7), q: 0.9, want: 7 * time.Second},
		{name: "an odd count's median is the middle", sorted: s(1, 2, 9), q: 0.5, want: 2 * time.Second},
		{name: "an even count's median is the mean of the middle two", sorted: s(1, 2, 4, 9), q: 0.5, want: 3 * time.Second},
		{name: "the 90th of ten lies between the ninth and the tenth", sorted: s(1, 2, 3, 4, 5, 6, 7, 8, 9, 19), q: 0.9, want: 10 * time.Second},
		{name: "the 90th of eleven is the tenth", sorted: s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100), q: 0.9, want: 10 * time.Second},
		{name: "the 90th of two", sorted: s(10, 20), q: 0.9, want: 19 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Percentile(tt.sorted, tt.q))
		})
	}
}

func TestComputeEmptyWindow(t *testing.T) {
	t.Parallel()
	s := Compute(nil, window(7, ""))
	require.Len(t, s.Days, 7, "every day of the window, runs or none")
	assert.Equal(t, time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), s.Days[0].Date)
	assert.Equal(t, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), s.Days[6].Date, "today is the last day")
	for _, d := range s.Days {
		assert.Zero(t, d.Runs)
		assert.Zero(t, d.SpendUSD)
	}
	assert.Zero(t, s.Median)
	assert.Zero(t, s.P90)
	assert.Zero(t, s.Verdicts.Total())
	assert.Zero(t, s.Verdicts.Percent(0), "0 of 0 is 0, not NaN")
	assert.Empty(t, s.Costliest)
}

func TestCompute(t *testing.T) {
	t.Parallel()
	runs := []Run{
		{ID: "a", Repo: "acme/app", Started: at(0, 8), Duration: 2 * time.Minute, Ending: "held", Verdict: "held", CostUSD: usd(0.5)},
		{ID: "b", Repo: "acme/app", Started: at(0, 1), Duration: 4 * time.Minute, Ending: "failed", Verdict: "broken", CostUSD: usd(0.25)},
		{ID: "c", Repo: "acme/lib", Started: at(2, 23), Duration: 6 * time.Minute, Ending: "completed", Verdict: "none"},
		{ID: "d", Repo: "acme/app", Started: at(2, 0), Duration: 10 * time.Minute, Ending: "completed", Verdict: "unjudged", CostUSD: usd(0)},
		{ID: "e", Repo: "acme/app", Started: at(0, 8), Duration: 0, Ending: "lost", CostUSD: usd(1.5)},
		{ID: "live", Repo: "acme/app", Started: at(0, 9), Duration: time.Hour, Ending: "live", CostUSD: usd(0.1)},
		{ID: "odd", Repo: "acme/app", Started: at(1, 5), Duration: time.Minute, Ending: "mystery"},
		{ID: "too-old", Repo: "acme/app", Started: at(7, 12), Duration: time.Hour, Ending: "failed", CostUSD: usd(9)},
		{ID: "future", Repo: "acme/app", Started: at(-1, 0), Duration: time.Hour, Ending: "failed", CostUSD: usd(9)},
	}
	s := Compute(runs, window(7, ""))
	assert.Equal(t, 7, s.Runs, "the run of 8 days ago and tomorrow's are outside the window")
	assert.Equal(t, append(append([]string{}, endings...), "mystery"), s.Endings, "an unknown ending stacks last")
	last, two := s.Days[6], s.Days[4]
	assert.Equal(t, 4, last.Runs)
	assert.Equal(t, map[string]int{"held": 1, "failed": 1, "lost": 1, "live": 1}, last.ByEnding)
	assert.InDelta(t, 2.35, last.SpendUSD, 1e-9)
	assert.Equal(t, 4, last.Priced)
	assert.Equal(t, map[string]int{"completed": 2}, two.ByEnding, "23:00 and 00:00 of one UTC day")
	assert.Equal(t, 1, two.Priced, "a cost of $0 is a price")
	assert.Equal(t, 1, two.Unpriced, "no price set is not $0")
	assert.Equal(t, 0, s.Days[5].ByEnding["live"])
	assert.Equal(t, 1, s.Days[5].ByEnding["mystery"])
	assert.Zero(t, s.Days[0].Runs)

	assert.Equal(t, 6, s.Ended, "the live run has not ended")
	assert.Equal(t, Shares{Held: 1, Broken: 1, Unverified: 4}, s.Verdicts, "none, unjudged and no verdict are unverified")
	assert.Equal(t, 17, s.Verdicts.Percent(1))
	assert.Equal(t, 5, s.Timed, "the lost run's duration is unknown")
	assert.Equal(t, 4*time.Minute, s.Median, "of 1, 2, 4, 6 and 10 minutes")
	assert.Equal(t, 8*time.Minute+24*time.Second, s.P90)
	assert.InDelta(t, 2.35, s.SpendUSD, 1e-9)
	assert.Equal(t, 2, s.Unpriced)
	var ids []string
	for _, r := range s.Costliest {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"e", "a", "b", "live", "d"}, ids, "dearest first; no unpriced run")

	app := Compute(runs, window(7, "ACME/App"))
	assert.Equal(t, 6, app.Runs, "one repository's, named in any case as on GitHub")
	assert.Equal(t, map[string]int{"completed": 1}, app.Days[4].ByEnding)
}

func TestCostliestKeepsTen(t *testing.T) {
	t.Parallel()
	var runs []Run
	for i := range 25 {
		runs = append(runs, Run{ID: fmt.Sprintf("r%02d", i), Started: at(i%30, 3), Ending: "held", CostUSD: usd(float64(i))})
	}
	s := Compute(runs, window(30, ""))
	require.Len(t, s.Costliest, 10)
	assert.Equal(t, "r24", s.Costliest[0].ID)
	assert.Equal(t, "r15", s.Costliest[9].ID)
}
