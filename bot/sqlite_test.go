package bot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/sqlitefile"
)

func openTestSQLite(t *testing.T, path string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(t.Context(), path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func sqliteTestRun(id, repo string, number int, commentID int64) *Run {
	return &Run{ID: id, Repo: repo, Number: number, Kind: KindFix, Instruction: "fix it",
		Actor: "alice", CommentID: commentID, State: StateQueued}
}

// requireSameRun compares runs field by field, times with time.Equal, and
// checks that the stored times come back in UTC.
func requireSameRun(t *testing.T, want, got *Run) {
	t.Helper()
	require.NotNil(t, got)
	assert.True(t, want.CreatedAt.Equal(got.CreatedAt), "CreatedAt: want %v, got %v", want.CreatedAt, got.CreatedAt)
	assert.True(t, want.UpdatedAt.Equal(got.UpdatedAt), "UpdatedAt: want %v, got %v", want.UpdatedAt, got.UpdatedAt)
	assert.Equal(t, time.UTC, got.CreatedAt.Location())
	assert.Equal(t, time.UTC, got.UpdatedAt.Location())
	w, g := *want, *got
	w.CreatedAt, w.UpdatedAt, g.CreatedAt, g.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	assert.Equal(t, w, g)
}

func TestSQLiteRunRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "bot.db"))
	zone := time.FixedZone("IST", 5*3600+1800)
	r := &Run{ID: "r1", Repo: "o/r", Number: 42, Kind: KindResolve, Instruction: "make the tests pass\n'quoted'",
		Actor: "alice", CommentID: 1001, DeliveryID: "d-1", InstallationID: 77, StatusCommentID: 5005,
		State: StateRunning, SessionID: "s-1", Branch: "core/fix-42", PRURL: "https://github.com/o/r/pull/43",
		Error: "not yet", CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 123456789, zone),
		UpdatedAt: time.Date(2025, 1, 2, 3, 4, 6, 987654321, zone)}
	created, existing, err := s.CreateRun(ctx, r)
	require.NoError(t, err)
	require.True(t, created)
	require.Nil(t, existing)
	got, err := s.GetRun(ctx, "r1")
	require.NoError(t, err)
	requireSameRun(t, r, got)

	got.State, got.StatusCommentID, got.SessionID, got.Branch = StateDone, 6006, "s-2", "core/fix-42b"
	got.PRURL, got.Error, got.UpdatedAt = "https://github.com/o/r/pull/44", "", time.Date(2026, 7, 8, 9, 10, 11, 1, zone)
	got.WorkflowURL = "https://github.com/o/r/actions/runs/77"
	require.NoError(t, s.UpdateRun(ctx, got))
	again, err := s.GetRun(ctx, "r1")
	require.NoError(t, err)
	requireSameRun(t, got, again)

	// The fields fixed at creation do not change.
	changed := *again
	changed.Instruction, changed.Actor = "something else", "mallory"
	require.NoError(t, s.UpdateRun(ctx, &changed))
	again, err = s.GetRun(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, "make the tests pass\n'quoted'", again.Instruction)
	assert.Equal(t, "alice", again.Actor)

	none, err := s.GetRun(ctx, "no-such-run")
	require.NoError(t, err)
	assert.Nil(t, none)
}

func TestSQLiteDefaults(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "bot.db"))
	now := time.Date(2025, 5, 6, 7, 8, 9, 10, time.UTC)
	s.now = func() time.Time { return now }
	r := sqliteTestRun("r1", "o/r", 1, 0)
	r.State = ""
	created, _, err := s.CreateRun(ctx, r)
	require.NoError(t, err)
	require.True(t, created)
	assert.Equal(t, StateQueued, r.State)
	assert.True(t, r.CreatedAt.Equal(now) && r.UpdatedAt.Equal(now), "times: %v %v", r.CreatedAt, r.UpdatedAt)
	got, err := s.GetRun(ctx, "r1")
	require.NoError(t, err)
	requireSameRun(t, r, got)

	now = now.Add(time.Minute)
	got.UpdatedAt = time.Time{}
	require.NoError(t, s.UpdateRun(ctx, got))
	assert.True(t, got.UpdatedAt.Equal(now), "UpdateRun set UpdatedAt %v, want %v", got.UpdatedAt, now)
	again, err := s.GetRun(ctx, "r1")
	require.NoError(t, err)
	requireSameRun(t, got, again)
}

func TestSQLiteRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		do      func(ctx context.Context, s *SQLite) error
		wantErr string
		wantIs  error
	}{
		{"create without an id", func(ctx context.Context, s *SQLite) error {
			_, _, err := s.CreateRun(ctx, sqliteTestRun("", "o/r", 1, 1))
			return err
		}, "run id is empty", nil},
		{"create in an unknown state", func(ctx context.Context, s *SQLite) error {
			r := sqliteTestRun("r1", "o/r", 1, 1)
			r.State = "paused"
			_, _, err := s.CreateRun(ctx, r)
			return err
		}, `unknown state "paused"`, nil},
		{"create a duplicate run id", func(ctx context.Context, s *SQLite) error {
			if _, _, err := s.CreateRun(ctx, sqliteTestRun("r1", "o/r", 1, 1)); err != nil {
				return err
			}
			_, _, err := s.CreateRun(ctx, sqliteTestRun("r1", "o/r", 2, 2))
			return err
		}, "UNIQUE constraint failed: runs.id", nil},
		{"update a run that does not exist", func(ctx context.Context, s *SQLite) error {
			return s.UpdateRun(ctx, sqliteTestRun("ghost", "o/r", 1, 1))
		}, "update run ghost: no such run", ErrRunNotFound},
		{"update to an unknown state", func(ctx context.Context, s *SQLite) error {
			r := sqliteTestRun("r1", "o/r", 1, 1)
			r.State = "Done"
			return s.UpdateRun(ctx, r)
		}, `unknown state "Done"`, nil},
		{"reactivate beside an active run", func(ctx context.Context, s *SQLite) error {
			a, b := sqliteTestRun("a", "o/r", 1, 1), sqliteTestRun("b", "o/r", 1, 2)
			a.State = StateDone
			for _, r := range []*Run{a, b} {
				if created, _, err := s.CreateRun(ctx, r); err != nil || !created {
					return fmt.Errorf("setup: created %v, err %w", created, err)
				}
			}
			a.State = StateRunning
			return s.UpdateRun(ctx, a)
		}, "UNIQUE constraint failed: runs.repo, runs.number", nil},
		{"record an empty delivery id", func(ctx context.Context, s *SQLite) error {
			_, err := s.SeenDelivery(ctx, "")
			return err
		}, "delivery id is empty", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.do(t.Context(), openTestSQLite(t, filepath.Join(t.TempDir(), "bot.db")))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			if tt.wantIs != nil {
				assert.ErrorIs(t, err, tt.wantIs)
			}
		})
	}
}

func TestSQLiteSeenDelivery(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "bot.db")
	s := openTestSQLite(t, path)
	for _, step := range []struct {
		id       string
		wantSeen bool
	}{{"d1", false}, {"d1", true}, {"d2", false}, {"d2", true}} {
		seen, err := s.SeenDelivery(ctx, step.id)
		require.NoError(t, err)
		assert.Equal(t, step.wantSeen, seen, "delivery %s", step.id)
	}
	require.NoError(t, s.Close())

	s = openTestSQLite(t, path) // a restart
	seen, err := s.SeenDelivery(ctx, "d1")
	require.NoError(t, err)
	assert.True(t, seen, "d1 forgotten across a restart")
	seen, err = s.SeenDelivery(ctx, "d3")
	require.NoError(t, err)
	assert.False(t, seen)
}

func TestSQLitePrune(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "bot.db"))
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	s.now = func() time.Time { return now }
	for _, id := range []string{"old-1", "old-2"} {
		_, err := s.SeenDelivery(ctx, id)
		require.NoError(t, err)
	}
	now = t0.Add(48 * time.Hour)
	_, err := s.SeenDelivery(ctx, "new")
	require.NoError(t, err)

	n, err := s.Prune(ctx, t0.Add(24*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)
	seen, err := s.SeenDelivery(ctx, "new")
	require.NoError(t, err)
	assert.True(t, seen, "a delivery after the cutoff was pruned")
	seen, err = s.SeenDelivery(ctx, "old-1")
	require.NoError(t, err)
	assert.False(t, seen, "a delivery before the cutoff was kept")
}

func TestSQLiteCreateRunConflicts(t *testing.T) {
	t.Parallel()
	type prior struct {
		run   *Run
		state string // moved to after creation, when set
	}
	a7 := func() *Run { return sqliteTestRun("a", "o/r", 1, 7) }
	a0 := func() *Run { return sqliteTestRun("a", "o/r", 1, 0) }
	failedB8 := sqliteTestRun("b", "o/r", 1, 8)
	failedB8.State = StateFailed
	tests := []struct {
		name         string
		before       []prior
		run          *Run
		wantExisting string // "" when the run is created
	}{
		{"same comment twice", []prior{{a7(), ""}}, sqliteTestRun("b", "o/r", 1, 7), "a"},
		{"same comment after its run is done", []prior{{a7(), StateDone}}, sqliteTestRun("b", "o/r", 1, 7), "a"},
		{"same comment after its run failed", []prior{{a7(), StateFailed}}, sqliteTestRun("b", "o/r", 1, 7), "a"},
		{"another comment while queued", []prior{{a7(), ""}}, sqliteTestRun("b", "o/r", 1, 8), "a"},
		{"another comment while running", []prior{{a7(), StateRunning}}, sqliteTestRun("b", "o/r", 1, 8), "a"},
		{"another comment after done", []prior{{a7(), StateDone}}, sqliteTestRun("b", "o/r", 1, 8), ""},
		{"another comment after cancelled", []prior{{a7(), StateCancelled}}, sqliteTestRun("b", "o/r", 1, 8), ""},
		{"a label while a comment run is active", []prior{{a7(), ""}}, sqliteTestRun("b", "o/r", 1, 0), "a"},
		{"a label while a label run is active", []prior{{a0(), StateRunning}}, sqliteTestRun("b", "o/r", 1, 0), "a"},
		{"a label after a label run is done", []prior{{a0(), StateDone}}, sqliteTestRun("b", "o/r", 1, 0), ""},
		{"same number in another repo", []prior{{a7(), ""}}, sqliteTestRun("b", "o/other", 1, 7), ""},
		{"another number in the same repo", []prior{{a7(), ""}}, sqliteTestRun("b", "o/r", 2, 8), ""},
		{"an inactive run beside the active one", []prior{{a7(), ""}}, failedB8, "a"},
		{"the active run among finished ones", []prior{{sqliteTestRun("x", "o/r", 1, 5), StateDone},
			{a7(), StateRunning}}, sqliteTestRun("b", "o/r", 1, 8), "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			s := openTestSQLite(t, filepath.Join(t.TempDir(), "bot.db"))
			for _, p := range tt.before {
				created, _, err := s.CreateRun(ctx, p.run)
				require.NoError(t, err)
				require.True(t, created, "setup run %s", p.run.ID)
				if p.state != "" {
					p.run.State = p.state
					require.NoError(t, s.UpdateRun(ctx, p.run))
				}
			}
			r := *tt.run
			created, existing, err := s.CreateRun(ctx, &r)
			require.NoError(t, err)
			stored, err := s.GetRun(ctx, r.ID)
			require.NoError(t, err)
			if tt.wantExisting == "" {
				assert.True(t, created)
				assert.Nil(t, existing)
				requireSameRun(t, &r, stored)
				return
			}
			assert.False(t, created)
			require.NotNil(t, existing)
			assert.Equal(t, tt.wantExisting, existing.ID)
			assert.Nil(t, stored, "a refused run was stored")
		})
	}
}

// contendSQLite has workers goroutines try to start runs on issues 1..issues
// of o/r, each with its own comment, and returns how many runs they created.
func TestSQLiteRestartKeepsActiveRun(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "bot.db")
	s := openTestSQLite(t, path)
	r := sqliteTestRun("r1", "o/r", 9, 99)
	created, _, err := s.CreateRun(ctx, r)
	require.NoError(t, err)
	require.True(t, created)
	require.NoError(t, s.Close())

	s = openTestSQLite(t, path)
	active, err := s.ActiveRun(ctx, "o/r", 9)
	require.NoError(t, err)
	requireSameRun(t, r, active)
	none, err := s.ActiveRun(ctx, "o/r", 10)
	require.NoError(t, err)
	assert.Nil(t, none)
}

func TestSQLiteAbandon(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "bot.db"))
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	now := t0.Add(time.Hour)
	s.now = func() time.Time { return now }
	const reason = "the bot restarted"
	tests := []struct {
		name      string
		state     string
		wantState string
	}{
		{"queued", StateQueued, StateFailed},
		{"running", StateRunning, StateFailed},
		{"done", StateDone, StateDone},
		{"cancelled", StateCancelled, StateCancelled},
	}
	for i, tt := range tests {
		r := sqliteTestRun(tt.name, "o/r", i+1, int64(i+1))
		r.State, r.CreatedAt = tt.state, t0.Add(time.Duration(i)*time.Minute)
		created, _, err := s.CreateRun(ctx, r)
		require.NoError(t, err)
		require.True(t, created)
	}
	none, err := s.Abandon(ctx, nil, reason)
	require.NoError(t, err)
	assert.Empty(t, none)
	abandoned, err := s.Abandon(ctx, []string{StateQueued, StateRunning}, reason)
	require.NoError(t, err)
	var ids []string
	for _, r := range abandoned {
		ids = append(ids, r.ID)
		assert.Equal(t, StateFailed, r.State)
		assert.Equal(t, reason, r.Error)
		assert.True(t, r.UpdatedAt.Equal(now), "UpdatedAt %v", r.UpdatedAt)
	}
	assert.Equal(t, []string{"queued", "running"}, ids, "oldest first")
	for _, tt := range tests {
		got, err := s.GetRun(ctx, tt.name)
		require.NoError(t, err)
		assert.Equal(t, tt.wantState, got.State, tt.name)
	}
	active, err := s.ActiveRun(ctx, "o/r", 2)
	require.NoError(t, err)
	assert.Nil(t, active, "the issue is free")
}

func TestSQLiteCountByState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		states []string
		want   map[string]int
	}{
		{"empty", nil, map[string]int{StateQueued: 0, StateRunning: 0, StateDone: 0, StateFailed: 0, StateCancelled: 0}},
		{"mixed", []string{StateQueued, StateDone, StateRunning, StateDone, StateQueued, StateDone, StateCancelled},
			map[string]int{StateQueued: 2, StateRunning: 1, StateDone: 3, StateFailed: 0, StateCancelled: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openTestSQLite(t, filepath.Join(t.TempDir(), "bot.db"))
			for i, state := range tt.states {
				r := sqliteTestRun(fmt.Sprint("r", i), "o/r", i+1, 0)
				r.State = state
				created, _, err := s.CreateRun(t.Context(), r)
				require.NoError(t, err)
				require.True(t, created)
			}
			got, err := s.CountByState(t.Context())
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSQLiteOpen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		wantErr []string
	}{
		{"a new file in a new directory", nil, nil},
		{"an existing empty file open to all", func(t *testing.T, path string) {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
			require.NoError(t, os.WriteFile(path, nil, 0o644))
		}, nil},
		{"a database of the current version", func(t *testing.T, path string) {
			require.NoError(t, openTestSQLite(t, path).Close())
		}, nil},
		{"a database of a newer version", func(t *testing.T, path string) {
			s := openTestSQLite(t, path)
			_, err := s.db.ExecContext(t.Context(), `INSERT INTO schema_version (version, applied_at) VALUES (99, 0)`)
			require.NoError(t, err)
			require.NoError(t, s.Close())
		}, []string{"schema version 99", fmt.Sprintf("newer than version %d that this core supports", len(sqliteMigrations()))}},
		{"a file that is not a database", func(t *testing.T, path string) {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
			require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not a database. ", 512)), 0o600))
		}, []string{"open bot store", "not a database"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			dir := filepath.Join(t.TempDir(), "state", "bot")
			path := filepath.Join(dir, "bot.db")
			if tt.prepare != nil {
				tt.prepare(t, path)
			}
			s, err := OpenSQLite(ctx, path)
			if tt.wantErr != nil {
				require.Error(t, err)
				for _, want := range tt.wantErr {
					assert.Contains(t, err.Error(), want)
				}
				return
			}
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			_, err = s.SeenDelivery(ctx, "d1") // a write, so that the WAL file exists
			require.NoError(t, err)
			for p, want := range map[string]os.FileMode{dir: os.ModeDir | 0o700, path: 0o600, path + "-wal": 0o600} {
				fi, err := os.Stat(p)
				require.NoError(t, err)
				assert.Equal(t, want, fi.Mode(), "mode of %s", p)
			}
			for pragma, want := range map[string]string{
				"journal_mode": "wal", "busy_timeout": strconv.FormatInt(sqliteBusy.Milliseconds(), 10), "foreign_keys": "1", "synchronous": "1",
			} {
				var got string
				require.NoError(t, s.db.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got))
				assert.Equal(t, want, got, "PRAGMA %s", pragma)
			}
			var rows, version int
			require.NoError(t, s.db.QueryRowContext(ctx, `SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&rows, &version))
			assert.Equal(t, len(sqliteMigrations()), rows, "schema steps recorded")
			assert.Equal(t, len(sqliteMigrations()), version)
		})
	}
	_, err := OpenSQLite(t.Context(), "")
	assert.ErrorContains(t, err, "the database path is empty")
}

// TestSQLiteMigratesVersion1 opens a database the first schema made, with
// a run in it: the run keeps what it had and gains an empty workflow URL.
func TestSQLiteMigratesVersion1(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "bot.db")
	db, err := sqlitefile.Open(path, sqliteBusy, "foreign_keys(ON)")
	require.NoError(t, err)
	for _, q := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL) STRICT`,
		sqliteMigrations()[0],
		`INSERT INTO schema_version (version, applied_at) VALUES (1, 0)`,
		`INSERT INTO runs ` + oldRunColumns + oldRunValues,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	require.NoError(t, db.Close())

	requireOldRunGainsWorkflowURL(t, openTestSQLite(t, path))
}

// oldRunColumns and oldRunValues are a run as the first schema stored it.
const (
	oldRunColumns = `(id, repo, number, kind, instruction, actor, comment_id, delivery_id, installation_id,
		status_comment_id, state, session_id, branch, pr_url, error, created_at, updated_at)`
	oldRunValues = `VALUES ('old', 'o/r', 5, 'fix', 'fix it', 'alice', 0, 'd', 7, 0, 'done', 's', 'b', '', '', 1, 2)`
)

// requireOldRunGainsWorkflowURL checks that s, migrated, still has the old
// run, with no workflow URL, and keeps one when it is given.
func requireOldRunGainsWorkflowURL(t *testing.T, s Store) {
	t.Helper()
	ctx := t.Context()
	got, err := s.GetRun(ctx, "old")
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, 5, got.Number)
	assert.Equal(t, StateDone, got.State)
	assert.Empty(t, got.WorkflowURL)
	got.WorkflowURL = "https://github.com/o/r/actions/runs/1"
	require.NoError(t, s.UpdateRun(ctx, got))
	again, err := s.GetRun(ctx, "old")
	require.NoError(t, err)
	assert.Equal(t, got.WorkflowURL, again.WorkflowURL)
}

// TestSQLiteTransactionsBeginImmediate checks that a transaction takes the
// write lock at BEGIN, so that CreateRun's check and insert are one step for
// every process on the file.
func TestSQLiteTransactionsBeginImmediate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "bot.db")
	a, b := openTestSQLite(t, path), openTestSQLite(t, path)
	conn, err := b.db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`) // fail fast instead of waiting
	require.NoError(t, err)
	insert := `INSERT INTO deliveries (id, seen_at) VALUES (?, 0)`

	tx, err := a.db.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = conn.ExecContext(ctx, insert, "while-locked")
	require.ErrorContains(t, err, "database is locked", "BEGIN did not take the write lock")
	require.NoError(t, tx.Rollback())
	_, err = conn.ExecContext(ctx, insert, "after-rollback")
	require.NoError(t, err)
}
