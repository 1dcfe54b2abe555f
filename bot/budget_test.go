package bot

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/sqlitefile"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/status"
)

func costPtr(v float64) *float64 { return &v }

// TestDailyBudgetRefusesTheNextRun: with CORE_BOT_DAILY_BUDGET_USD at $1,
// the runs on octo/hello that cost $1.25 today spend it: the next /core fix
// is refused with a comment that says so, nothing is dispatched and no run
// is recorded. What was spent yesterday, or on another repository, does
// not count.
func TestDailyBudgetRefusesTheNextRun(t *testing.T) {
	t.Parallel()
	today := time.Now().UTC()
	tests := []struct {
		name    string
		spent   []*Run
		refused bool
	}{
		{name: "spent today", refused: true, spent: []*Run{
			{ID: "r-a", Repo: "octo/hello", Number: 90, CreatedAt: today, CostUSD: costPtr(0.5)},
			{ID: "r-b", Repo: "octo/hello", Number: 91, CreatedAt: today, CostUSD: costPtr(0.75)},
			{ID: "r-c", Repo: "octo/hello", Number: 92, CreatedAt: today}, // no price: unknown
		}},
		{name: "spent yesterday", spent: []*Run{
			{ID: "r-y", Repo: "octo/hello", Number: 90, CreatedAt: dayStart(today).Add(-time.Minute), CostUSD: costPtr(5)},
		}},
		{name: "spent elsewhere", spent: []*Run{
			{ID: "r-e", Repo: "octo/other", Number: 90, CreatedAt: today, CostUSD: costPtr(5)},
		}},
		{name: "not yet", spent: []*Run{
			{ID: "r-n", Repo: "octo/hello", Number: 90, CreatedAt: today, CostUSD: costPtr(0.99)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, func(c *Config) { c.DailyBudgetUSD = 1 }, nil)
			for _, r := range tt.spent {
				r.Kind, r.State, r.Actor = KindFix, StateDone, "alice"
				created, _, err := f.store.CreateRun(t.Context(), r)
				require.NoError(t, err)
				require.True(t, created)
			}
			n := f.addIssue(t)
			cid := f.addComment(t, n, "alice", "/core fix")
			require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "budget-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false)))
			f.settle(t)
			active, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
			require.NoError(t, err)
			if !tt.refused {
				assert.NotNil(t, active, "the run starts")
				assert.Len(t, f.g.Dispatches("octo", "hello"), 1)
				return
			}
			assert.Nil(t, active, "no run is recorded")
			assert.Empty(t, f.g.Dispatches("octo", "hello"), "nothing is dispatched")
			comments := botComments(f, n)
			require.Len(t, comments, 1)
			assert.Equal(t, "core: this repository's daily budget is spent: its runs cost $1.2500 today (UTC), and the budget is $1.0000 a day (CORE_BOT_DAILY_BUDGET_USD). Ask again tomorrow, or ask whoever runs core's bot to raise it.", comments[0].Body)
		})
	}
}

// TestLocalRunRecordsItsCost: a local run's cost comes from its report:
// the store records it, the status comment says it, and the day's spend
// counts it. The scripted model reports 2000+100 and 3000+100 tokens at a
// price of $1000 per million: $5.20.
func TestLocalRunRecordsItsCost(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: HELLO").WithUsage(2000, 100),
		llm.ContentReply("tool: done\nsummary: Shout").WithUsage(3000, 100))
	f := newFixture(t, func(c *Config) { c.Dispatch = DispatchLocal; c.DailyBudgetUSD = 50 }, nil)
	f.env = localEnv(t, srv)
	f.env["CORE_SESSION_PRICE_PER_MTOK"] = "1000"
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "local-cost", commentPayload(t, "alice", "User", n, cid, "/core fix", false)))
	waitFor(t, "the run ends", func() bool { return strings.Contains(statusOf(f, n), "Cost: ") })
	st := statusOf(f, n)
	assert.Contains(t, st, "done: http")
	assert.Contains(t, st, "Cost: $5.2000; budget: $5.2000 of $50.0000 (--budget-usd).", "capped at what is left of the day")
	for _, r := range srv.Requests() {
		assert.Positive(t, r.MaxTokens, "a capped run bounds its replies")
	}
	spent, err := f.store.Spent(t.Context(), "octo/hello", dayStart(time.Now()))
	require.NoError(t, err)
	assert.InDelta(t, 5.2, spent, 1e-9)
	by, err := f.store.SpentByRepo(t.Context(), dayStart(time.Now()))
	require.NoError(t, err)
	assert.Equal(t, []string{"octo/hello"}, keys(by))
	require.NoError(t, f.bot.Shutdown(t.Context()))
}

// TestWorkflowRunRecordsTheCost: an Actions run's cost is the cost marker
// the Action wrote into the status comment; the bot records it when the
// workflow run completes. A comment without one leaves the cost unknown.
func TestWorkflowRunRecordsTheCost(t *testing.T) {
	t.Parallel()
	for _, cost := range []string{"0.7500", ""} {
		t.Run("cost "+cost, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, nil)
			_, run := f.dispatched(t)
			// The Action writes its result, with the cost marker.
			client, err := f.bot.Base().installationClient(testInstallationID)
			require.NoError(t, err)
			require.NoError(t, status.Update(t.Context(), client, "octo", "hello", run.StatusCommentID, run.ID, func(c *status.Comment) {
				c.Text, c.Cost = "core is done.\n\nCost: $"+cost+".", cost
			}))
			done := payload(t, "workflow_run", "completed", map[string]any{
				"workflow_run.event": "workflow_dispatch", "workflow_run.conclusion": "success",
				"workflow_run.display_title": "core fix " + run.ID, "workflow_run.html_url": "https://github.example/octo/hello/actions/runs/5",
			})
			require.Equal(t, http.StatusOK, f.deliver(t, "workflow_run", "wc-2", done))
			f.settle(t)
			got, err := f.store.GetRun(t.Context(), run.ID)
			require.NoError(t, err)
			assert.Equal(t, StateDone, got.State)
			if cost == "" {
				assert.Nil(t, got.CostUSD, "unknown, not zero")
				return
			}
			require.NotNil(t, got.CostUSD)
			assert.InDelta(t, 0.75, *got.CostUSD, 1e-9)
		})
	}
}

func keys(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSQLiteUpgradeKeepsRunsWithUnknownCost: a database of schema version
// 1 (before costs were recorded) is upgraded in place; its runs read back
// with their cost unknown.
func TestSQLiteUpgradeKeepsRunsWithUnknownCost(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bot.db")
	db, err := sqlitefile.Open(path, sqliteBusy, "foreign_keys(ON)")
	require.NoError(t, err)
	for _, q := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL) STRICT`,
		sqliteMigrations()[0],
		`INSERT INTO schema_version (version, applied_at) VALUES (1, 0)`,
		`INSERT INTO runs VALUES ('r-old', 'octo/hello', 3, 'fix', '', 'alice', 0, 'd', 7, 0, 'done', '', '', '', '', 1, 1)`,
	} {
		_, err := db.ExecContext(t.Context(), q)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())
	s, err := OpenSQLite(t.Context(), path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	old, err := s.GetRun(t.Context(), "r-old")
	require.NoError(t, err)
	require.NotNil(t, old)
	assert.Nil(t, old.CostUSD)
	old.CostUSD = costPtr(0.25)
	require.NoError(t, s.UpdateRun(t.Context(), old))
	got, err := s.GetRun(t.Context(), "r-old")
	require.NoError(t, err)
	require.NotNil(t, got.CostUSD)
	assert.InDelta(t, 0.25, *got.CostUSD, 1e-9)
}

// TestStoresSumTheSpend: both stores record a run's cost, leave an unknown
// one out of the sum, and sum by day and repository.
func TestStoresSumTheSpend(t *testing.T) {
	t.Parallel()
	for name, open := range bothStores() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			for i, r := range []*Run{
				{ID: "a", Repo: "o/r", CreatedAt: day.Add(time.Hour), CostUSD: costPtr(1.5)},
				{ID: "b", Repo: "o/r", CreatedAt: day.Add(2 * time.Hour)},
				{ID: "c", Repo: "o/r", CreatedAt: day.Add(-time.Hour), CostUSD: costPtr(9)},
				{ID: "d", Repo: "o/other", CreatedAt: day.Add(time.Hour), CostUSD: costPtr(0.25)},
			} {
				r.Number, r.Kind, r.State, r.Actor = i+1, KindFix, StateRunning, "alice"
				created, _, err := s.CreateRun(ctx, r)
				require.NoError(t, err)
				require.True(t, created)
			}
			b, err := s.GetRun(ctx, "b")
			require.NoError(t, err)
			assert.Nil(t, b.CostUSD, "unknown stays unknown")
			b.State, b.CostUSD = StateDone, costPtr(0.5)
			require.NoError(t, s.UpdateRun(ctx, b))
			b, err = s.GetRun(ctx, "b")
			require.NoError(t, err)
			require.NotNil(t, b.CostUSD)
			assert.InDelta(t, 0.5, *b.CostUSD, 1e-9)

			spent, err := s.Spent(ctx, "o/r", day)
			require.NoError(t, err)
			assert.InDelta(t, 2, spent, 1e-9)
			spent, err = s.Spent(ctx, "o/none", day)
			require.NoError(t, err)
			assert.Zero(t, spent)
			by, err := s.SpentByRepo(ctx, day)
			require.NoError(t, err)
			assert.InDeltaMapValues(t, map[string]float64{"o/r": 2, "o/other": 0.25}, by, 1e-9)
		})
	}
}
