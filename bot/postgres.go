package bot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver
)

// Postgres is the Store on PostgreSQL, for several bot replicas on one
// database (CORE_BOT_DATABASE_URL): a delivery is handled by the replica
// that records it first, and one run starts per comment and per issue.
// CreateRun takes a transaction-scoped advisory lock on the run's issue,
// so its check for a conflicting run and its insert are one step across
// replicas; the unique indexes are the same as SQLite's.
//
// Times are stored as Unix nanoseconds, as in SQLite.
type Postgres struct {
	db  *sql.DB
	now func() time.Time
}

var _ Store = (*Postgres)(nil)

const pgRunColumns = `id, repo, number, kind, instruction, actor, comment_id, delivery_id,
	installation_id, status_comment_id, state, session_id, branch, pr_url, error, created_at, updated_at,
	workflow_url, cost_usd, reserved_usd, actor_id`

// pgSchema creates the bot's tables (bot_deliveries, bot_runs) when they
// are missing.
const pgSchema = `
CREATE TABLE IF NOT EXISTS bot_deliveries (id TEXT PRIMARY KEY, seen_at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS bot_deliveries_seen_at ON bot_deliveries (seen_at);
CREATE TABLE IF NOT EXISTS bot_runs (
	id TEXT PRIMARY KEY, repo TEXT NOT NULL, number BIGINT NOT NULL, kind TEXT NOT NULL,
	instruction TEXT NOT NULL, actor TEXT NOT NULL, comment_id BIGINT NOT NULL,
	delivery_id TEXT NOT NULL, installation_id BIGINT NOT NULL, status_comment_id BIGINT NOT NULL,
	state TEXT NOT NULL, session_id TEXT NOT NULL, branch TEXT NOT NULL, pr_url TEXT NOT NULL,
	error TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS bot_runs_comment ON bot_runs (repo, comment_id) WHERE comment_id != 0;
CREATE UNIQUE INDEX IF NOT EXISTS bot_runs_active ON bot_runs (repo, number) WHERE state IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS bot_runs_branch ON bot_runs (repo, branch, created_at);
CREATE INDEX IF NOT EXISTS bot_runs_state ON bot_runs (state, created_at);
ALTER TABLE bot_runs ADD COLUMN IF NOT EXISTS workflow_url TEXT NOT NULL DEFAULT '';
ALTER TABLE bot_runs ADD COLUMN IF NOT EXISTS cost_usd DOUBLE PRECISION;
ALTER TABLE bot_runs ADD COLUMN IF NOT EXISTS reserved_usd DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE bot_runs ADD COLUMN IF NOT EXISTS actor_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS bot_runs_repo_created ON bot_runs (repo, created_at);`

// OpenPostgres opens the store on the database dsn names (postgres://…)
// and creates its tables when they are missing.
func OpenPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	where := "(an unparsable URL)"
	if u, err := url.Parse(dsn); err == nil {
		where = u.Redacted()
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open bot store on PostgreSQL %s: %w", where, err)
	}
	s := &Postgres{db: db, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("open bot store on PostgreSQL %s: %w", where, err), db.Close())
	}
	return s, nil
}

// migrate creates the schema under an advisory lock, so replicas starting
// together do not race.
func (s *Postgres) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7170014)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, pgSchema); err != nil {
		return fmt.Errorf("create the schema: %w", err)
	}
	return tx.Commit()
}

// SeenDelivery records a delivery id; seen is true when it was already there.
func (s *Postgres) SeenDelivery(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, errors.New("record delivery: the delivery id is empty")
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO bot_deliveries (id, seen_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`,
		id, s.now().UnixNano())
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", id, err)
	}
	return n == 0, nil
}

// CreateRun records r (see Store), with SQLite's defaults.
func (s *Postgres) CreateRun(ctx context.Context, r *Run) (bool, *Run, error) {
	return createRun(r, s.now, func(n *Run) (*Run, error) { return s.insertRun(ctx, n, nil) })
}

// CreateRunWithin records r within budget (see Store): the day's spend is
// summed in the insert's transaction, under a lock on the repository's
// budget, so two runs started together, on any replicas, are decided one
// after the other.
func (s *Postgres) CreateRunWithin(ctx context.Context, r *Run, budget DayBudget) (bool, *Run, error) {
	return createRun(r, s.now, func(n *Run) (*Run, error) { return s.insertRun(ctx, n, &budget) })
}

// pgHeldAndSpent sums what the runs on a repository since a time cost and
// hold.
const pgHeldAndSpent = `SELECT COALESCE(SUM(cost_usd), 0),
	COALESCE(SUM(CASE WHEN cost_usd IS NULL AND state IN ('queued', 'running') THEN reserved_usd ELSE 0 END), 0)
	FROM bot_runs WHERE repo = $1 AND created_at >= $2`

// CountByState counts the runs in each state; every known state is present.
func (s *Postgres) CountByState(ctx context.Context) (map[string]int, error) {
	return countByState(ctx, s.db, "bot_runs")
}

func (s *Postgres) insertRun(ctx context.Context, r *Run, budget *DayBudget) (*Run, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	// The budget's lock first, then the issue's: always in that order.
	if budget != nil {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "budget:"+r.Repo); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
		fmt.Sprintf("%s#%d", r.Repo, r.Number)); err != nil {
		return nil, err
	}
	if r.CommentID != 0 {
		existing, err := pgGetRun(ctx, tx, `repo = $1 AND comment_id = $2`, r.Repo, r.CommentID)
		if err != nil || existing != nil {
			return existing, err
		}
	}
	existing, err := pgGetRun(ctx, tx, `repo = $1 AND number = $2 AND state IN ('queued', 'running')`, r.Repo, r.Number)
	if err != nil || existing != nil {
		return existing, err
	}
	if err := holdIn(ctx, tx, pgHeldAndSpent, r, budget); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO bot_runs (`+pgRunColumns+`)
		VALUES (`+pgPlaceholders(len(runArgs(r)))+`)`, runArgs(r)...); err != nil {
		return nil, err // a duplicate run id, or a comment of another issue
	}
	return nil, tx.Commit()
}

// UpdateRun saves r's mutable fields (see SQLite.UpdateRun).
func (s *Postgres) UpdateRun(ctx context.Context, r *Run) error {
	if err := checkRun(r); err != nil {
		return fmt.Errorf("update run: %w", err)
	}
	updated := r.UpdatedAt
	if updated.IsZero() {
		updated = s.now()
	}
	res, err := s.db.ExecContext(ctx, `UPDATE bot_runs SET state = $1, status_comment_id = $2, session_id = $3,
		branch = $4, pr_url = $5, error = $6, updated_at = $7, workflow_url = $8, cost_usd = $9 WHERE id = $10`,
		r.State, r.StatusCommentID, r.SessionID, r.Branch, r.PRURL, r.Error, updated.UnixNano(), r.WorkflowURL, nullCost(r.CostUSD), r.ID)
	if err != nil {
		return fmt.Errorf("update run %s: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("update run %s: %w", r.ID, cmpErr(err, ErrRunNotFound))
	}
	r.UpdatedAt = updated
	return nil
}

func cmpErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// GetRun finds a run by id; nil when there is none.
func (s *Postgres) GetRun(ctx context.Context, id string) (*Run, error) {
	r, err := pgGetRun(ctx, s.db, `id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	return r, nil
}

// ActiveRun finds the queued or running run on an issue or pull request.
func (s *Postgres) ActiveRun(ctx context.Context, repo string, number int) (*Run, error) {
	r, err := pgGetRun(ctx, s.db, `repo = $1 AND number = $2 AND state IN ('queued', 'running')`, repo, number)
	if err != nil {
		return nil, fmt.Errorf("get active run on %s#%d: %w", repo, number, err)
	}
	return r, nil
}

// Abandon fails every run in one of states with reason (see Store),
// oldest first.
func (s *Postgres) Abandon(ctx context.Context, states []string, reason string) ([]*Run, error) {
	if len(states) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `UPDATE bot_runs SET state = $1, error = $2, updated_at = $3
		WHERE state = ANY($4) RETURNING `+pgRunColumns,
		StateFailed, reason, s.now().UnixNano(), states)
	if err != nil {
		return nil, fmt.Errorf("abandon runs: %w", err)
	}
	return scanRuns(rows, "abandon runs", true)
}

// Prune forgets the deliveries seen before before.
func (s *Postgres) Prune(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM bot_deliveries WHERE seen_at < $1`, before.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("prune deliveries: %w", err)
	}
	return res.RowsAffected()
}

// RecentRuns lists the newest runs, for the console.
func (s *Postgres) RecentRuns(ctx context.Context, limit int) ([]*Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+pgRunColumns+` FROM bot_runs ORDER BY created_at DESC, id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("list recent runs: %w", err)
	}
	return scanRuns(rows, "list recent runs", false)
}

// Spent is what the runs on repo created since since cost, as known.
func (s *Postgres) Spent(ctx context.Context, repo string, since time.Time) (float64, error) {
	return spent(ctx, s.db, `SELECT SUM(cost_usd) FROM bot_runs WHERE repo = $1 AND created_at >= $2`, repo, since)
}

// Hold sets what run id holds of the day's budget.
func (s *Postgres) Hold(ctx context.Context, id string, usd float64) error {
	res, err := s.db.ExecContext(ctx, `UPDATE bot_runs SET reserved_usd = $1 WHERE id = $2`, usd, id)
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n == 0 {
			err = ErrRunNotFound
		}
	}
	if err != nil {
		return fmt.Errorf("hold $%.4f for run %s: %w", usd, id, err)
	}
	return nil
}

// Held is what the active runs on repo created since since hold.
func (s *Postgres) Held(ctx context.Context, repo string, since time.Time) (float64, error) {
	return spent(ctx, s.db, `SELECT SUM(reserved_usd) FROM bot_runs WHERE repo = $1 AND created_at >= $2 AND cost_usd IS NULL AND state IN ('queued', 'running')`, repo, since)
}

// SpentByRepo is Spent for every repository with runs since since.
func (s *Postgres) SpentByRepo(ctx context.Context, since time.Time) (map[string]float64, error) {
	return spentByRepo(ctx, s.db, `SELECT repo, SUM(cost_usd) FROM bot_runs WHERE created_at >= $1 GROUP BY repo`, since)
}

// Close closes the database.
func (s *Postgres) Close() error { return s.db.Close() }

func pgGetRun(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, where string, args ...any) (*Run, error) {
	r, err := scanRun(q.QueryRowContext(ctx, `SELECT `+pgRunColumns+` FROM bot_runs WHERE `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}
