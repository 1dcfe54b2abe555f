package bot

import (
	"crypto/rand"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// TestPostgresBudgetLockOrdersStarts: a start within the daily budget
// takes the repository's budget lock before it sums the day's spend, so
// that two replicas cannot both sum before either inserts. While another
// session holds that lock, the start waits on it (PostgreSQL says so:
// pg_blocking_pids names the holder), nothing is inserted, and once the
// lock is released it starts. A start on another repository does not wait.
func TestPostgresBudgetLockOrdersStarts(t *testing.T) {
	t.Parallel()
	dsn := testkit.PostgresSchema(t, "bot_")
	s := openTestPostgres(t, dsn)
	ctx := t.Context()
	// Advisory locks are the database's, not the schema's: a repository
	// of this test's own keeps other tests' starts out of it.
	repo := "o/lock-" + strings.ToLower(rand.Text()[:8])
	day := time.Now().UTC().Truncate(24 * time.Hour)
	budget := DayBudget{Since: day, USD: 1, Reserve: 0.5}
	newRun := func(id, repo string) *Run {
		return &Run{ID: id, Repo: repo, Number: 1, Kind: KindFix, Actor: "alice", State: StateQueued, CreatedAt: day.Add(time.Hour)}
	}

	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	holder, err := db.Conn(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = holder.Close() })
	tx, err := holder.BeginTx(ctx, nil)
	require.NoError(t, err)
	var holderPID int
	require.NoError(t, tx.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&holderPID))
	_, err = tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "budget:"+repo)
	require.NoError(t, err)

	// Another repository's budget is another lock.
	created, _, err := s.CreateRunWithin(ctx, newRun("elsewhere", repo+"-other"), budget)
	require.NoError(t, err)
	require.True(t, created)

	type outcome struct {
		created bool
		err     error
	}
	done := make(chan outcome, 1)
	go func() {
		created, _, err := s.CreateRunWithin(ctx, newRun("waits", repo), budget)
		done <- outcome{created, err}
	}()
	deadline := time.Now().Add(testkit.Patience)
	for {
		var waiting int
		require.NoError(t, db.QueryRowContext(ctx,
			`SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, holderPID).Scan(&waiting))
		if waiting > 0 {
			break
		}
		select {
		case o := <-done:
			t.Fatalf("the start did not wait for the budget lock: created %v, %v", o.created, o.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for the start to wait on the budget lock", testkit.Patience)
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, err := s.GetRun(ctx, "waits")
	require.NoError(t, err)
	assert.Nil(t, got, "nothing is inserted while the budget lock is held")

	require.NoError(t, tx.Rollback())
	o := testkit.Receive(t, done, "the start after the budget lock was released")
	require.NoError(t, o.err)
	assert.True(t, o.created)
}
