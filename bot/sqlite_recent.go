package bot

import (
	"context"
	"fmt"
	"time"
)

// RecentRuns lists the newest runs, at most limit, for the console's Runs
// page.
func (s *SQLite) RecentRuns(ctx context.Context, limit int) ([]*Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sqliteRunColumns+` FROM runs ORDER BY created_at DESC, rowid DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list recent runs: %w", err)
	}
	return scanRuns(rows, "list recent runs", false)
}

// Spent is what the runs on repo created since since cost, as known.
func (s *SQLite) Spent(ctx context.Context, repo string, since time.Time) (float64, error) {
	return spent(ctx, s.db, `SELECT SUM(cost_usd) FROM runs WHERE repo = ? AND created_at >= ?`, repo, since)
}

// Hold sets what run id holds of the day's budget.
func (s *SQLite) Hold(ctx context.Context, id string, usd float64) error {
	n, err := s.exec(ctx, `UPDATE runs SET reserved_usd = ? WHERE id = ?`, usd, id)
	if err == nil && n == 0 {
		err = ErrRunNotFound
	}
	if err != nil {
		return fmt.Errorf("hold $%.4f for run %s: %w", usd, id, err)
	}
	return nil
}

// Held is what the active runs on repo created since since hold.
func (s *SQLite) Held(ctx context.Context, repo string, since time.Time) (float64, error) {
	return spent(ctx, s.db, `SELECT SUM(reserved_usd) FROM runs WHERE repo = ? AND created_at >= ? AND cost_usd IS NULL AND state IN ('queued', 'running')`, repo, since)
}

// SpentByRepo is Spent for every repository with runs since since.
func (s *SQLite) SpentByRepo(ctx context.Context, since time.Time) (map[string]float64, error) {
	return spentByRepo(ctx, s.db, `SELECT repo, SUM(cost_usd) FROM runs WHERE created_at >= ? GROUP BY repo`, since)
}
