package bot

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
)

// TestDayBudgetReserve is the rule of a new run against the day's budget:
// it starts when something is left after what the day's runs cost and
// hold, and holds what it may spend, no more than is left.
func TestDayBudgetReserve(t *testing.T) {
	t.Parallel()
	all := math.Inf(1)
	tests := []struct {
		name            string
		budget, reserve float64
		spent, held     float64
		wantHeld        float64
		refused         bool
	}{
		{name: "a fresh day, a local run holds it all", budget: 10, reserve: all, wantHeld: 10},
		{name: "what is left after the spend", budget: 10, reserve: all, spent: 3, wantHeld: 7},
		{name: "what is left after the spend and the holds", budget: 10, reserve: all, spent: 3, held: 4, wantHeld: 3},
		{name: "a run that holds less than is left", budget: 10, reserve: 2, spent: 3, wantHeld: 2},
		{name: "an Actions run holds nothing", budget: 10, reserve: 0, spent: 3, wantHeld: 0},
		{name: "a negative reserve holds nothing", budget: 10, reserve: -1, wantHeld: 0},
		{name: "spent to the cent", budget: 10, reserve: all, spent: 10, refused: true},
		{name: "overspent", budget: 10, reserve: 0, spent: 12.5, refused: true},
		{name: "held to the cent", budget: 10, reserve: 0, spent: 4, held: 6, refused: true},
		{name: "held by others while nothing was spent", budget: 10, reserve: all, held: 10, refused: true},
		{name: "a spend that is not a number", budget: 10, reserve: all, spent: math.NaN(), refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			held, err := DayBudget{USD: tt.budget, Reserve: tt.reserve}.reserve(tt.spent, tt.held)
			if !tt.refused {
				require.NoError(t, err)
				assert.InDelta(t, tt.wantHeld, held, 1e-9)
				return
			}
			var over *OverBudget
			require.ErrorAs(t, err, &over)
			assert.Zero(t, held)
			assert.Equal(t, OverBudget{Spent: tt.spent, Held: tt.held, Budget: tt.budget}.Budget, over.Budget)
		})
	}
}

func TestOverBudgetSaysWhatIsHeld(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "this repository's daily budget is spent: its runs cost $1.2500 today (UTC), and the budget is $1.0000 a day (CORE_BOT_DAILY_BUDGET_USD). Ask again tomorrow, or ask whoever runs core's bot to raise it.",
		(&OverBudget{Spent: 1.25, Budget: 1}).Error())
	assert.Equal(t, "this repository's daily budget is spent: its runs cost $0.2500 today (UTC) and its runs in flight hold $0.7500, and the budget is $1.0000 a day (CORE_BOT_DAILY_BUDGET_USD). Ask again tomorrow, or ask whoever runs core's bot to raise it.",
		(&OverBudget{Spent: 0.25, Held: 0.75, Budget: 1}).Error())
}

// bothStores opens a fresh store of each kind (PostgreSQL's is skipped
// without CORE_TEST_DATABASE_URL).
func bothStores() map[string]func(t *testing.T) Store {
	return map[string]func(t *testing.T) Store{
		"sqlite":   func(t *testing.T) Store { return openTestSQLite(t, filepath.Join(t.TempDir(), "bot.db")) },
		"postgres": func(t *testing.T) Store { return openTestPostgres(t, testkit.PostgresSchema(t, "bot_")) },
	}
}

// TestStoresHoldTheDayBudget: runs started together on one repository,
// each holding all that is left of a $1 day, are decided one after the
// other in the store: one starts, the others are refused, on any issue.
// The hold counts until the run's cost is known (settled), is lowered to
// the run's own budget (Hold), and is released when a restart abandons
// the run. Runs on another repository, or yesterday's, do not count.
func TestStoresHoldTheDayBudget(t *testing.T) {
	t.Parallel()
	for name, open := range bothStores() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			day := time.Now().UTC().Truncate(24 * time.Hour)
			budget := DayBudget{Since: day, USD: 1, Reserve: math.Inf(1)}
			newRun := func(id string, number int) *Run {
				return &Run{ID: id, Repo: "o/r", Number: number, Kind: KindFix, Actor: "alice", State: StateQueued, CreatedAt: day.Add(time.Hour)}
			}
			// Yesterday's spend and another repository's do not count.
			for _, r := range []*Run{
				{ID: "y", Repo: "o/r", Number: 100, CreatedAt: day.Add(-time.Hour), CostUSD: costPtr(50)},
				{ID: "x", Repo: "o/other", Number: 100, CreatedAt: day.Add(time.Hour), CostUSD: costPtr(50)},
			} {
				r.Kind, r.State, r.Actor = KindFix, StateDone, "bob"
				created, _, err := s.CreateRun(ctx, r)
				require.NoError(t, err)
				require.True(t, created)
			}

			const together = 6
			var wg sync.WaitGroup
			results := make([]error, together)
			created := make([]bool, together)
			for i := range together {
				wg.Go(func() {
					created[i], _, results[i] = s.CreateRunWithin(ctx, newRun(fmt.Sprintf("r%d", i), i+1), budget)
				})
			}
			wg.Wait()
			var first string
			for i := range together {
				var over *OverBudget
				switch {
				case created[i]:
					require.NoError(t, results[i])
					require.Empty(t, first, "a second run started: r%d and %s", i, first)
					first = fmt.Sprintf("r%d", i)
				case errors.As(results[i], &over):
					assert.InDelta(t, 1, over.Held, 1e-9, "r%d refused for what the run that started holds", i)
					assert.Zero(t, over.Spent)
				default:
					t.Fatalf("r%d: neither started nor refused for the budget: %v", i, results[i])
				}
			}
			require.NotEmpty(t, first, "one run starts")
			got, err := s.GetRun(ctx, first)
			require.NoError(t, err)
			assert.InDelta(t, 1, got.ReservedUSD, 1e-9, "it holds all that was left")
			held, err := s.Held(ctx, "o/r", day)
			require.NoError(t, err)
			assert.InDelta(t, 1, held, 1e-9)

			// Its own budget of $0.25 lowers the hold: a run that holds
			// $0.50 of the rest starts, and then nothing is left.
			require.NoError(t, s.Hold(ctx, first, 0.25))
			second := newRun("s", 50)
			ok, _, err := s.CreateRunWithin(ctx, second, DayBudget{Since: day, USD: 1, Reserve: 0.5})
			require.NoError(t, err)
			require.True(t, ok)
			assert.InDelta(t, 0.5, second.ReservedUSD, 1e-9)
			_, _, err = s.CreateRunWithin(ctx, newRun("t", 51), DayBudget{Since: day, USD: 1, Reserve: 0.5})
			require.NoError(t, err, "$0.25 is still left")
			_, _, err = s.CreateRunWithin(ctx, newRun("u", 52), budget)
			var over *OverBudget
			require.ErrorAs(t, err, &over, "nothing is left")

			// Settled: the first run cost $0.10, which counts instead of
			// its hold, and frees $0.15.
			got.State, got.CostUSD = StateDone, costPtr(0.1)
			require.NoError(t, s.UpdateRun(ctx, got))
			spent, err := s.Spent(ctx, "o/r", day)
			require.NoError(t, err)
			assert.InDelta(t, 0.1, spent, 1e-9)
			held, err = s.Held(ctx, "o/r", day)
			require.NoError(t, err)
			assert.InDelta(t, 0.75, held, 1e-9, "s holds $0.50, t $0.25")
			v := newRun("v", 53)
			ok, _, err = s.CreateRunWithin(ctx, v, budget)
			require.NoError(t, err)
			require.True(t, ok)
			assert.InDelta(t, 0.15, v.ReservedUSD, 1e-9)

			// A restart abandons the runs in flight: their holds go.
			abandoned, err := s.Abandon(ctx, []string{StateQueued, StateRunning}, "restart")
			require.NoError(t, err)
			assert.Len(t, abandoned, 3)
			held, err = s.Held(ctx, "o/r", day)
			require.NoError(t, err)
			assert.Zero(t, held)
			w := newRun("w", 54)
			ok, _, err = s.CreateRunWithin(ctx, w, budget)
			require.NoError(t, err)
			require.True(t, ok)
			assert.InDelta(t, 0.9, w.ReservedUSD, 1e-9, "all but the $0.10 spent")

			// A run that could not start anyway (its issue has one) is
			// told so, not refused for the budget.
			again, existing, err := s.CreateRunWithin(ctx, newRun("w2", 54), budget)
			require.NoError(t, err)
			assert.False(t, again)
			require.NotNil(t, existing)
			assert.Equal(t, "w", existing.ID)
		})
	}
}

// TestDailyBudgetHoldsForARunInFlight: with a $1 day and priced local
// runs, a run in flight holds all that is left of the day, so a /core fix
// on another issue, asked while the first run waits on its model, is
// refused (before, both started: the spend was read, and nothing was
// spent yet). Once the first run ends, its cost counts instead, and the
// rest of the day is free again.
func TestDailyBudgetHoldsForARunInFlight(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	first := llm.ContentReply("tool: done\nsummary: Nothing to do").WithUsage(9000, 1000)
	first.Gate = gate
	srv := llm.NewModelServer(t, first,
		llm.ContentReply("tool: done\nsummary: Nothing to do either").WithUsage(9000, 1000))
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal; c.DailyBudgetUSD = 1 }, nil)
	f.env = localEnv(t, srv)
	f.env["CORE_SESSION_PRICE_PER_MTOK"] = "1"
	a, b := f.addIssue(t), f.addIssue(t)
	ca := f.addComment(t, a, "alice", "/core fix")
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "hold-a", commentPayload(t, "alice", "User", a, ca, "/core fix", false)))
	asked, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	require.NoError(t, srv.WaitRequests(asked, 1), "the first run asks its model (its status: %s)", statusOf(f, a))

	cb := f.addComment(t, b, "alice", "/core fix")
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "hold-b", commentPayload(t, "alice", "User", b, cb, "/core fix", false)))
	f.settle(t)
	active, err := f.store.ActiveRun(t.Context(), "octo/hello", b)
	require.NoError(t, err)
	assert.Nil(t, active, "no second run is recorded while the first holds the day")
	comments := botComments(f, b)
	require.Len(t, comments, 1)
	assert.Equal(t, "core: this repository's daily budget is spent: its runs cost $0.0000 today (UTC) and its runs in flight hold $1.0000, and the budget is $1.0000 a day (CORE_BOT_DAILY_BUDGET_USD). Ask again tomorrow, or ask whoever runs core's bot to raise it.", comments[0].Body)

	close(gate)
	waitFor(t, "the first run ends", func() bool { return strings.Contains(statusOf(f, a), "Cost: ") })
	cb2 := f.addComment(t, b, "alice", "/core fix")
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "hold-b2", commentPayload(t, "alice", "User", b, cb2, "/core fix", false)))
	waitFor(t, "the second run ends", func() bool { return strings.Contains(statusOf(f, b), "Cost: ") })
	assert.Contains(t, statusOf(f, b), "of $0.9900 (--budget-usd)", "capped at what the first run left: $1 - $0.01")
	require.NoError(t, f.bot.Shutdown(t.Context()))
}
