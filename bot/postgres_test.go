package bot

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

func openTestPostgres(t *testing.T, dsn string) *Postgres {
	t.Helper()
	s, err := OpenPostgres(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestPostgresStore(t *testing.T) {
	t.Parallel()
	s := openTestPostgres(t, testkit.PostgresSchema(t, "bot_"))
	ctx := t.Context()
	seen, err := s.SeenDelivery(ctx, "d1")
	require.NoError(t, err)
	assert.False(t, seen)
	seen, err = s.SeenDelivery(ctx, "d1")
	require.NoError(t, err)
	assert.True(t, seen, "the second time")

	a := sqliteTestRun("a", "o/r", 1, 7)
	created, _, err := s.CreateRun(ctx, a)
	require.NoError(t, err)
	require.True(t, created)
	got, err := s.GetRun(ctx, "a")
	require.NoError(t, err)
	requireSameRun(t, a, got)

	tests := []struct {
		name         string
		run          *Run
		wantExisting string
	}{
		{"same comment", sqliteTestRun("b", "o/r", 1, 7), "a"},
		{"another comment while active", sqliteTestRun("b", "o/r", 1, 8), "a"},
		{"a label while active", sqliteTestRun("b", "o/r", 1, 0), "a"},
		{"another issue", sqliteTestRun("c", "o/r", 2, 9), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			created, existing, err := s.CreateRun(ctx, tt.run)
			require.NoError(t, err)
			if tt.wantExisting == "" {
				assert.True(t, created)
				return
			}
			assert.False(t, created)
			require.NotNil(t, existing)
			assert.Equal(t, tt.wantExisting, existing.ID)
		})
	}
	a.State, a.Branch, a.WorkflowURL = StateDone, "core-session/x", "https://github.com/o/r/actions/runs/9"
	require.NoError(t, s.UpdateRun(ctx, a))
	stored, err := s.GetRun(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, a.WorkflowURL, stored.WorkflowURL)
	created, _, err = s.CreateRun(ctx, sqliteTestRun("d", "o/r", 1, 10))
	require.NoError(t, err)
	assert.True(t, created, "a new run once the first is done")
	assert.ErrorIs(t, s.UpdateRun(ctx, sqliteTestRun("nope", "o/r", 1, 0)), ErrRunNotFound)

	counts, err := s.CountByState(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, counts[StateQueued])
	assert.Equal(t, 1, counts[StateDone])
	abandoned, err := s.Abandon(ctx, []string{StateQueued, StateRunning}, "restarted")
	require.NoError(t, err)
	require.Len(t, abandoned, 2)
	assert.Equal(t, StateFailed, abandoned[0].State)
	assert.Equal(t, "restarted", abandoned[0].Error)
	seen, err = s.SeenDelivery(ctx, "old-delivery")
	require.NoError(t, err)
	assert.False(t, seen)
	pruned, err := s.Prune(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, pruned, int64(1))
	seen, err = s.SeenDelivery(ctx, "old-delivery")
	require.NoError(t, err)
	assert.False(t, seen, "a pruned delivery is forgotten")
	recent, err := s.RecentRuns(ctx, 10)
	require.NoError(t, err)
	assert.Len(t, recent, 3)
}

func TestPostgresCreateRunAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := testkit.PostgresSchema(t, "bot_")
	stores := []*Postgres{openTestPostgres(t, dsn), openTestPostgres(t, dsn)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := map[int]int{}
	for w := range 8 {
		wg.Go(func() {
			s := stores[w%2]
			for issue := 1; issue <= 5; issue++ {
				ok, existing, err := s.CreateRun(t.Context(), sqliteTestRun(
					"w"+itoa(int64(w))+"-i"+itoa(int64(issue)), "o/r", issue, int64(issue*1000+w)))
				if !assert.NoError(t, err) {
					return
				}
				if !ok {
					assert.Equal(t, issue, existing.Number)
				}
				mu.Lock()
				if ok {
					created[issue]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for issue := 1; issue <= 5; issue++ {
		assert.Equal(t, 1, created[issue], "issue %d", issue)
	}
}

// Two bot processes behind one load balancer, on one PostgreSQL database,
// receive the same deliveries (GitHub redelivering, or the balancer
// retrying on the other): each comment starts one run.
func TestTwoBotsOnePostgresHandleDeliveriesOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	dsn := testkit.PostgresSchema(t, "bot_")
	var urls []string
	handled := make(chan struct{}, 16)
	for range 2 {
		cfg := *f.cfg
		cfg.DatabaseURL = dsn
		b, err := New(t.Context(), &cfg, Deps{Logger: zerolog.Nop(), Handled: func() { handled <- struct{}{} }})
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Shutdown(context.WithoutCancel(t.Context())) })
		hs := httptest.NewServer(b)
		t.Cleanup(hs.Close)
		urls = append(urls, hs.URL)
	}
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	body := commentPayload(t, "alice", "User", n, cid, "/core fix", false)
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			delivery := "same-delivery"
			if i >= 4 {
				delivery = "other-delivery-" + itoa(int64(i)) // the same comment in another delivery
			}
			assert.Equal(t, http.StatusOK, deliverTo(t, urls[i%2], testSecret, "issue_comment", delivery, body))
		})
	}
	wg.Wait()
	// The handlers run after the 200: wait until every delivery was handled.
	for i := range 6 {
		testkit.Receive(t, handled, fmt.Sprintf("delivery %d of 6 to be handled", i+1))
	}
	assert.Len(t, f.g.Dispatches("octo", "hello"), 1, "one run, dispatched once")
	assert.Len(t, botComments(f, n), 1, "one status comment")
}

// TestPostgresAddsTheWorkflowURL opens a database whose bot_runs table
// predates the workflow URL: the column is added, the run kept.
func TestPostgresAddsTheWorkflowURL(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := testkit.PostgresSchema(t, "bot_")
	old := openTestPostgres(t, dsn)
	for _, q := range []string{
		`ALTER TABLE bot_runs DROP COLUMN workflow_url`,
		`INSERT INTO bot_runs ` + oldRunColumns + oldRunValues,
	} {
		_, err := old.db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	requireOldRunGainsWorkflowURL(t, openTestPostgres(t, dsn))
}
