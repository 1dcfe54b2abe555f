package bot

import (
	"context"
	"fmt"
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
