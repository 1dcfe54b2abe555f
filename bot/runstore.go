package bot

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// What the SQLite and the PostgreSQL stores share: the runs' checks and
// defaults, their columns in the order both tables hold them, and the
// statements that read the same in both dialects.

// checkRun refuses a run the store must not record.
func checkRun(r *Run) error {
	if r.ID == "" {
		return errors.New("the run id is empty")
	}
	switch r.State {
	case StateQueued, StateRunning, StateDone, StateFailed, StateCancelled:
		return nil
	}
	return fmt.Errorf("run %s has unknown state %q", r.ID, r.State)
}

// createRun is CreateRun for either store: an empty State becomes queued,
// a zero CreatedAt now and a zero UpdatedAt CreatedAt; insert adds the run
// or returns the run that keeps it from starting, and r is updated only
// when the run is created.
func createRun(r *Run, now func() time.Time, insert func(*Run) (*Run, error)) (bool, *Run, error) {
	n := *r
	if n.State == "" {
		n.State = StateQueued
	}
	if err := checkRun(&n); err != nil {
		return false, nil, fmt.Errorf("create run: %w", err)
	}
	if n.CreatedAt.IsZero() {
		n.CreatedAt = now()
	}
	if n.UpdatedAt.IsZero() {
		n.UpdatedAt = n.CreatedAt
	}
	existing, err := insert(&n)
	if err != nil {
		return false, nil, fmt.Errorf("create run %s: %w", n.ID, err)
	}
	if existing != nil {
		return false, existing, nil
	}
	*r = n
	return true, nil, nil
}

// countByState counts the runs of table in each state; every known state
// is present.
func countByState(ctx context.Context, db *sql.DB, table string) (map[string]int, error) {
	counts := map[string]int{StateQueued: 0, StateRunning: 0, StateDone: 0, StateFailed: 0, StateCancelled: 0}
	rows, err := db.QueryContext(ctx, `SELECT state, COUNT(*) FROM `+table+` GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("count runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("count runs: %w", err)
		}
		counts[state] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count runs: %w", err)
	}
	return counts, nil
}

// runArgs are a run's columns, in the tables' order.
func runArgs(r *Run) []any {
	return []any{r.ID, r.Repo, r.Number, r.Kind, r.Instruction, r.Actor, r.CommentID, r.DeliveryID,
		r.InstallationID, r.StatusCommentID, r.State, r.SessionID, r.Branch, r.PRURL, r.Error,
		r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), r.WorkflowURL, nullCost(r.CostUSD), r.ReservedUSD, r.ActorID}
}

// pgPlaceholders is PostgreSQL's "$1, $2, …, $n": one per column of
// runArgs, counted from it so that a new column cannot be left out.
func pgPlaceholders(n int) string {
	p := make([]string, n)
	for i := range p {
		p[i] = "$" + strconv.Itoa(i+1)
	}
	return strings.Join(p, ", ")
}

// scanRun reads one run of a row of runArgs' columns.
func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	var r Run
	var created, updated int64
	var cost sql.NullFloat64
	if err := row.Scan(&r.ID, &r.Repo, &r.Number, &r.Kind, &r.Instruction, &r.Actor, &r.CommentID, &r.DeliveryID,
		&r.InstallationID, &r.StatusCommentID, &r.State, &r.SessionID, &r.Branch, &r.PRURL, &r.Error,
		&created, &updated, &r.WorkflowURL, &cost, &r.ReservedUSD, &r.ActorID); err != nil {
		return nil, err
	}
	r.CreatedAt, r.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	if cost.Valid {
		r.CostUSD = &cost.Float64
	}
	return &r, nil
}

// nullCost is a cost as a column: NULL when unknown.
func nullCost(c *float64) sql.NullFloat64 {
	if c == nil {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: *c, Valid: true}
}

// spent sums the known costs of the runs on repo since since; query
// takes (repo, since) and returns one sum or NULL.
func spent(ctx context.Context, db *sql.DB, query, repo string, since time.Time) (float64, error) {
	var sum sql.NullFloat64
	if err := db.QueryRowContext(ctx, query, repo, since.UnixNano()).Scan(&sum); err != nil {
		return 0, fmt.Errorf("sum the spend on %s: %w", repo, err)
	}
	return sum.Float64, nil
}

// holdIn decides r against budget (none: nil) in tx, the transaction
// that records it, and sets what r holds; query takes (repo, since) and
// returns what the day's runs cost and hold (see Store.Held).
func holdIn(ctx context.Context, tx *sql.Tx, query string, r *Run, budget *DayBudget) error {
	if budget == nil {
		return nil
	}
	var spent, held float64
	if err := tx.QueryRowContext(ctx, query, r.Repo, budget.Since.UnixNano()).Scan(&spent, &held); err != nil {
		return fmt.Errorf("sum the spend on %s: %w", r.Repo, err)
	}
	var err error
	r.ReservedUSD, err = budget.reserve(spent, held)
	return err
}

// spentByRepo sums the known costs by repository; query takes (since) and
// returns (repo, sum) rows.
func spentByRepo(ctx context.Context, db *sql.DB, query string, since time.Time) (map[string]float64, error) {
	rows, err := db.QueryContext(ctx, query, since.UnixNano())
	if err != nil {
		return nil, fmt.Errorf("sum the spend: %w", err)
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var repo string
		var sum sql.NullFloat64
		if err := rows.Scan(&repo, &sum); err != nil {
			return nil, fmt.Errorf("sum the spend: %w", err)
		}
		out[repo] = sum.Float64
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sum the spend: %w", err)
	}
	return out, nil
}

// scanRuns reads every run of rows, oldest first when asked.
func scanRuns(rows *sql.Rows, what string, oldestFirst bool) ([]*Run, error) {
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if oldestFirst {
		sortRunsOldestFirst(out)
	}
	return out, nil
}

func sortRunsOldestFirst(runs []*Run) {
	slices.SortFunc(runs, func(a, b *Run) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
}
