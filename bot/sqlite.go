package bot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/coreagent/core/internal/sqlitefile"
)

// ErrRunNotFound is returned by UpdateRun for a run the store does not hold.
var ErrRunNotFound = errors.New("no such run")

// SQLite is the Store kept in one SQLite database file. It is safe for
// concurrent use, and for several processes sharing the file: writes that
// must be atomic run in BEGIN IMMEDIATE transactions, and the unique indexes
// have the last word on "one run per comment" and "one active run per issue
// or pull request".
//
// Times are stored as Unix nanoseconds and read back in UTC.
type SQLite struct {
	db  *sql.DB
	now func() time.Time // the clock for times the caller does not give
}

var _ Store = (*SQLite)(nil)

// sqliteRunColumns lists the runs columns in the order scanRun reads
// them and runArgs writes them.
const sqliteRunColumns = `id, repo, number, kind, instruction, actor, comment_id, delivery_id,
	installation_id, status_comment_id, state, session_id, branch, pr_url, error, created_at, updated_at,
	workflow_url, cost_usd, reserved_usd, actor_id`

// sqliteActiveRun selects the active run on (repo, number). Its state list
// must match the runs_active index predicate.
const sqliteActiveRun = `repo = ? AND number = ? AND state IN ('queued', 'running')`

// sqliteMigrations returns the schema steps: step i takes the database from
// version i to version i+1. Append only; never edit a released step.
func sqliteMigrations() []string {
	return []string{
		`CREATE TABLE deliveries (id TEXT PRIMARY KEY, seen_at INTEGER NOT NULL) STRICT;
		CREATE INDEX deliveries_seen_at ON deliveries (seen_at);
		CREATE TABLE runs (
			id TEXT PRIMARY KEY, repo TEXT NOT NULL, number INTEGER NOT NULL, kind TEXT NOT NULL,
			instruction TEXT NOT NULL, actor TEXT NOT NULL, comment_id INTEGER NOT NULL,
			delivery_id TEXT NOT NULL, installation_id INTEGER NOT NULL, status_comment_id INTEGER NOT NULL,
			state TEXT NOT NULL, session_id TEXT NOT NULL, branch TEXT NOT NULL, pr_url TEXT NOT NULL,
			error TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
		) STRICT;
		CREATE UNIQUE INDEX runs_comment ON runs (repo, comment_id) WHERE comment_id != 0;
		CREATE UNIQUE INDEX runs_active ON runs (repo, number) WHERE state IN ('queued', 'running');
		CREATE INDEX runs_branch ON runs (repo, branch, created_at);
		CREATE INDEX runs_state ON runs (state, created_at);`,
		`ALTER TABLE runs ADD COLUMN workflow_url TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE runs ADD COLUMN cost_usd REAL;
		CREATE INDEX runs_repo_created ON runs (repo, created_at);`,
		`ALTER TABLE runs ADD COLUMN reserved_usd REAL NOT NULL DEFAULT 0`,
		`ALTER TABLE runs ADD COLUMN actor_id INTEGER NOT NULL DEFAULT 0`,
	}
}

// OpenSQLite opens the store at path, creating the file (0600) and its
// directory (0700) when missing, and brings its schema up to date.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	if path == "" {
		return nil, errors.New("open bot store: the database path is empty")
	}
	s, err := openSQLite(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open bot store %s: %w", path, err)
	}
	return s, nil
}

// sqliteBusy is how long a write waits for another connection's lock (the
// bot's other process, its workers). On a loaded machine the holder of a
// lock can be off the CPU for seconds; a webhook waits rather than fail.
const sqliteBusy = 30 * time.Second

func openSQLite(ctx context.Context, path string) (*SQLite, error) {
	db, err := sqlitefile.Open(path, sqliteBusy, "foreign_keys(ON)")
	if err != nil {
		return nil, err
	}
	s := &SQLite{db: db, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return s, nil
}

// migrate applies the schema steps the database lacks, in one transaction.
func (s *SQLite) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var version int
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version INTEGER NOT NULL, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	steps := sqliteMigrations()
	if version > len(steps) {
		return fmt.Errorf("the database has schema version %d, newer than version %d that this core supports: upgrade core", version, len(steps))
	}
	for v := version; v < len(steps); v++ {
		if _, err := tx.ExecContext(ctx, steps[v]); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, applied_at) VALUES (?, ?)`,
			v+1, s.now().UnixNano()); err != nil {
			return fmt.Errorf("record schema version %d: %w", v+1, err)
		}
	}
	return tx.Commit()
}

// SeenDelivery records a delivery id; seen is true when it was already there.
func (s *SQLite) SeenDelivery(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, errors.New("record delivery: the delivery id is empty")
	}
	n, err := s.exec(ctx, `INSERT OR IGNORE INTO deliveries (id, seen_at) VALUES (?, ?)`, id, s.now().UnixNano())
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", id, err)
	}
	return n == 0, nil
}

// Prune forgets the deliveries seen before before, and reports how many.
func (s *SQLite) Prune(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.exec(ctx, `DELETE FROM deliveries WHERE seen_at < ?`, before.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("prune deliveries: %w", err)
	}
	return n, nil
}

// insertRun inserts r in one BEGIN IMMEDIATE transaction, or returns the
// run that keeps it from starting.
// CreateRun records r (see Store). An empty State becomes queued; a zero
// CreatedAt becomes now and a zero UpdatedAt becomes CreatedAt, and r is
// updated with them when the run is created.
func (s *SQLite) CreateRun(ctx context.Context, r *Run) (bool, *Run, error) {
	return createRun(r, s.now, func(n *Run) (*Run, error) { return s.insertRun(ctx, n, nil) })
}

// CreateRunWithin records r within budget (see Store): the day's spend is
// summed in the insert's BEGIN IMMEDIATE transaction, so two runs started
// together are decided one after the other.
func (s *SQLite) CreateRunWithin(ctx context.Context, r *Run, budget DayBudget) (bool, *Run, error) {
	return createRun(r, s.now, func(n *Run) (*Run, error) { return s.insertRun(ctx, n, &budget) })
}

// sqliteHeldAndSpent sums what the runs on a repository since a time cost
// and hold.
const sqliteHeldAndSpent = `SELECT COALESCE(SUM(cost_usd), 0),
	COALESCE(SUM(CASE WHEN cost_usd IS NULL AND state IN ('queued', 'running') THEN reserved_usd ELSE 0 END), 0)
	FROM runs WHERE repo = ? AND created_at >= ?`

// CountByState counts the runs in each state; every known state is present.
func (s *SQLite) CountByState(ctx context.Context) (map[string]int, error) {
	return countByState(ctx, s.db, "runs")
}

func (s *SQLite) insertRun(ctx context.Context, r *Run, budget *DayBudget) (*Run, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	// The unique indexes hold only active runs, so an inactive one is
	// checked against the active run by hand; so is any run within a
	// budget, so that a run that could not start anyway is not refused
	// for the budget.
	if !r.Active() || budget != nil {
		if existing, err := sqliteConflict(ctx, tx, r); err != nil || existing != nil {
			return existing, err
		}
	}
	if err := holdIn(ctx, tx, sqliteHeldAndSpent, r, budget); err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO runs (`+sqliteRunColumns+`)
		VALUES (`+strings.TrimSuffix(strings.Repeat("?, ", len(runArgs(r))), ", ")+`)`, runArgs(r)...)
	if isSQLiteUnique(err) {
		if existing, cerr := sqliteConflict(ctx, tx, r); cerr != nil || existing != nil {
			return existing, cerr
		}
	}
	if err != nil {
		return nil, err // a duplicate run id lands here
	}
	return nil, tx.Commit()
}

// sqliteConflict finds the run that keeps r from starting: the run its
// comment already started, else the active run on its issue or pull request.
func sqliteConflict(ctx context.Context, tx *sql.Tx, r *Run) (*Run, error) {
	if r.CommentID != 0 {
		existing, err := sqliteGetRun(ctx, tx, `repo = ? AND comment_id = ?`, r.Repo, r.CommentID)
		if err != nil || existing != nil {
			return existing, err
		}
	}
	return sqliteGetRun(ctx, tx, sqliteActiveRun, r.Repo, r.Number)
}

// UpdateRun saves r's state, status comment, session, branch, PR URL,
// error, cost and UpdatedAt (now when zero, and then set on r). The other fields are
// fixed at creation.
func (s *SQLite) UpdateRun(ctx context.Context, r *Run) error {
	if err := checkRun(r); err != nil {
		return fmt.Errorf("update run: %w", err)
	}
	updated := r.UpdatedAt
	if updated.IsZero() {
		updated = s.now()
	}
	n, err := s.exec(ctx, `UPDATE runs SET state = ?, status_comment_id = ?, session_id = ?,
		branch = ?, pr_url = ?, error = ?, updated_at = ?, workflow_url = ?, cost_usd = ? WHERE id = ?`,
		r.State, r.StatusCommentID, r.SessionID, r.Branch, r.PRURL, r.Error, updated.UnixNano(), r.WorkflowURL, nullCost(r.CostUSD), r.ID)
	if err != nil {
		return fmt.Errorf("update run %s: %w", r.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("update run %s: %w", r.ID, ErrRunNotFound)
	}
	r.UpdatedAt = updated
	return nil
}

// GetRun finds a run by id; nil when there is none.
func (s *SQLite) GetRun(ctx context.Context, id string) (*Run, error) {
	r, err := sqliteGetRun(ctx, s.db, `id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	return r, nil
}

// ActiveRun finds the queued or running run on an issue or pull request.
func (s *SQLite) ActiveRun(ctx context.Context, repo string, number int) (*Run, error) {
	r, err := sqliteGetRun(ctx, s.db, sqliteActiveRun, repo, number)
	if err != nil {
		return nil, fmt.Errorf("get active run on %s#%d: %w", repo, number, err)
	}
	return r, nil
}

// Abandon fails every run in one of states with reason, in one statement,
// and returns them oldest first.
func (s *SQLite) Abandon(ctx context.Context, states []string, reason string) ([]*Run, error) {
	if len(states) == 0 {
		return nil, nil
	}
	args := []any{StateFailed, reason, s.now().UnixNano()}
	for _, st := range states {
		args = append(args, st)
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(states)), ", ")
	rows, err := s.db.QueryContext(ctx, `UPDATE runs SET state = ?, error = ?, updated_at = ?
		WHERE state IN (`+marks+`) RETURNING `+sqliteRunColumns, args...)
	if err != nil {
		return nil, fmt.Errorf("abandon runs: %w", err)
	}
	return scanRuns(rows, "abandon runs", true)
}

// exec runs one statement and reports how many rows it changed.
func (s *SQLite) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := s.db.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Close closes the database.
func (s *SQLite) Close() error { return s.db.Close() }

// sqliteGetRun reads the first run matching where; nil when none does.
func sqliteGetRun(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, where string, args ...any) (*Run, error) {
	r, err := scanRun(q.QueryRowContext(ctx, `SELECT `+sqliteRunColumns+` FROM runs WHERE `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

// isSQLiteUnique reports whether err is a UNIQUE or PRIMARY KEY violation.
func isSQLiteUnique(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}
