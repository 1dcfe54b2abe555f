package console

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

const runColumns = `session_id, repo, trigger_kind, actor, status, verdict, turns, tokens,
	duration_ns, pr_url, started_at, received_at, report, owner_id`

// runSelect is what a run is read with: its columns, when a live run was
// last heard from (kept by HeardFrom, not by PutRun) and what its events
// told before its report (kept by SetLive).
const runSelect = runColumns + `, seen_at, live_progress`

// PutRun inserts the run, or replaces the one with its session id when r's
// owner is that run's (or that run has no owner and r's actor is its
// actor): one statement decides, so two racing first reports cannot both
// own the row.
func (s *SQL) PutRun(ctx context.Context, r *Run) (bool, error) {
	if r.Owner == "" {
		return false, fmt.Errorf("store run %s: the run has no owner", r.SessionID)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("store run %s: %w", r.SessionID, err)
	}
	defer func() { _ = tx.Rollback() }()
	var n int
	if err := tx.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*) FROM console_runs WHERE session_id = ?`), r.SessionID).Scan(&n); err != nil {
		return false, fmt.Errorf("store run %s: %w", r.SessionID, err)
	}
	report := string(r.Report)
	if report == "" {
		report = "{}"
	}
	res, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO console_runs (`+runColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET repo = excluded.repo, trigger_kind = excluded.trigger_kind,
		actor = excluded.actor, status = excluded.status, verdict = excluded.verdict, turns = excluded.turns,
		tokens = excluded.tokens, duration_ns = excluded.duration_ns, pr_url = excluded.pr_url,
		started_at = excluded.started_at, received_at = excluded.received_at, report = excluded.report,
		owner_id = excluded.owner_id
		WHERE console_runs.owner_id = excluded.owner_id
		OR (console_runs.owner_id = '' AND LOWER(console_runs.actor) = LOWER(excluded.actor))`),
		r.SessionID, r.Repo, r.Trigger, r.Actor, r.Status, r.Verdict, r.Turns, r.Tokens,
		int64(r.Duration), r.PRURL, r.StartedAt.UnixNano(), r.ReceivedAt.UnixNano(), report, r.Owner)
	if err != nil {
		return false, fmt.Errorf("store run %s: %w", r.SessionID, err)
	}
	affected, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store run %s: %w", r.SessionID, err)
	}
	if affected == 0 {
		return false, fmt.Errorf("store run %s: %w", r.SessionID, ErrNotOwner)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store run %s: %w", r.SessionID, err)
	}
	return n == 0, nil
}

// GetRun finds a run by session id.
func (s *SQL) GetRun(ctx context.Context, id string) (*Run, error) {
	r, err := scanRun(s.queryRow(ctx, `SELECT `+runSelect+` FROM console_runs WHERE session_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read run %s: %w", id, err)
	}
	return r, nil
}

// ListRuns lists the runs f matches (a repository, status or login in
// any case), newest first.
func (s *SQL) ListRuns(ctx context.Context, f RunFilter) ([]*Run, error) {
	q := `SELECT ` + runSelect + ` FROM console_runs WHERE 1 = 1`
	var args []any
	for col, v := range map[string]string{"repo": f.Repo, "status": f.Status, "actor": f.Actor} {
		if v != "" {
			q += ` AND LOWER(` + col + `) = LOWER(?)` // as GitHub names them, and as matches compares
			args = append(args, v)
		}
	}
	if !f.Since.IsZero() {
		q += ` AND started_at >= ?`
		args = append(args, f.Since.UnixNano())
	}
	q += ` ORDER BY started_at DESC, session_id`
	if f.Since.IsZero() || f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limitOr(f.Limit, 100))
	}
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		if f.Brief {
			r.brief()
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

func limitOr(n, def int) int {
	if n <= 0 || n > 1000 {
		return def
	}
	return n
}

func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	var r Run
	var dur, started, received, seen int64
	var report, progress string
	if err := row.Scan(&r.SessionID, &r.Repo, &r.Trigger, &r.Actor, &r.Status, &r.Verdict, &r.Turns, &r.Tokens,
		&dur, &r.PRURL, &started, &received, &report, &r.Owner, &seen, &progress); err != nil {
		return nil, err
	}
	r.Duration = time.Duration(dur)
	r.StartedAt, r.ReceivedAt, r.SeenAt = unixTime(started), unixTime(received), unixTime(seen)
	r.Report = []byte(report)
	r.CostUSD = costOf(r.Report)
	if len(r.Report) <= 2 && progress != "" {
		// A live run: its goal and cost as its events told them.
		var p LiveProgress
		if json.Unmarshal([]byte(progress), &p) == nil {
			r.Goal, r.CostUSD = p.Goal, p.CostUSD
		}
	}
	return &r, nil
}

// costOf reads a report's cost_usd; nil when it has none.
func costOf(report []byte) *float64 {
	var rep struct {
		CostUSD *float64 `json:"cost_usd"`
	}
	if json.Unmarshal(report, &rep) != nil {
		return nil
	}
	return rep.CostUSD
}

func unixTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
