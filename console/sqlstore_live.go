package console

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// AppendEvents appends a live run's events from position from: those the
// store already holds (a batch sent again) are skipped, a batch that
// starts past the end is ErrEventGap, and a run that would hold more than
// maxRunEvents is ErrTooManyEvents. It returns the position after the last
// event held.
func (s *SQL) AppendEvents(ctx context.Context, sessionID string, from int64, events []json.RawMessage, now time.Time) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("append events of run %s: %w", sessionID, err)
	}
	defer func() { _ = tx.Rollback() }()
	if s.postgres {
		// One writer a run at a time: two replicas appending the same
		// batch would both count the same end.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, sessionID); err != nil {
			return 0, fmt.Errorf("append events of run %s: lock: %w", sessionID, err)
		}
	}
	var held int64
	if err := tx.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*) FROM console_run_events WHERE session_id = ?`), sessionID).Scan(&held); err != nil {
		return 0, fmt.Errorf("append events of run %s: %w", sessionID, err)
	}
	switch {
	case from > held:
		return held, fmt.Errorf("append events of run %s from %d: %w", sessionID, from, ErrEventGap)
	case from+int64(len(events)) > maxRunEvents:
		return held, fmt.Errorf("append events of run %s: %w", sessionID, ErrTooManyEvents)
	}
	for i, e := range events {
		seq := from + int64(i)
		if seq < held {
			continue
		}
		if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO console_run_events (session_id, seq, at, event) VALUES (?, ?, ?, ?)`),
			sessionID, seq, now.UnixNano(), string(e)); err != nil {
			return 0, fmt.Errorf("append events of run %s: %w", sessionID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("append events of run %s: %w", sessionID, err)
	}
	return max(held, from+int64(len(events))), nil
}

// Events lists a run's events after position after (-1: from the first),
// in order, at most limit (500 when 0; a run holds at most maxRunEvents).
func (s *SQL) Events(ctx context.Context, sessionID string, after int64, limit int) ([]*RunEvent, error) {
	if limit <= 0 {
		limit = 500
	}
	rows, err := s.query(ctx, `SELECT seq, event FROM console_run_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		sessionID, after, min(limit, maxRunEvents))
	if err != nil {
		return nil, fmt.Errorf("read events of run %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []*RunEvent
	for rows.Next() {
		var e RunEvent
		var raw string
		if err := rows.Scan(&e.Seq, &raw); err != nil {
			return nil, fmt.Errorf("read events of run %s: %w", sessionID, err)
		}
		e.Event = json.RawMessage(raw)
		e.Line, e.Kind = eventLine(e.Event), eventKind(e.Event)
		out = append(out, &e)
	}
	return out, rows.Err()
}

// LastEvents lists a run's last n events, in order.
func (s *SQL) LastEvents(ctx context.Context, sessionID string, n int) ([]*RunEvent, error) {
	var held int64
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM console_run_events WHERE session_id = ?`, sessionID).Scan(&held); err != nil {
		return nil, fmt.Errorf("read events of run %s: %w", sessionID, err)
	}
	return s.Events(ctx, sessionID, max(held-int64(n), 0)-1, n)
}

// SetLive sets what the events of a run that has sent no report yet
// told of it: its status (kept when p has none), turns, tokens, goal and
// cost. A run with its report keeps the report's.
func (s *SQL) SetLive(ctx context.Context, sessionID string, p LiveProgress) error {
	progress, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("set the progress of run %s: %w", sessionID, err)
	}
	q := `UPDATE console_runs SET turns = ?, tokens = ?, live_progress = ? WHERE session_id = ? AND report = '{}'`
	args := []any{p.Turns, p.Tokens, string(progress), sessionID}
	if p.Status != "" {
		q = `UPDATE console_runs SET turns = ?, tokens = ?, live_progress = ?, status = ?, lost_from = '' WHERE session_id = ? AND report = '{}'`
		args = []any{p.Turns, p.Tokens, string(progress), p.Status, sessionID}
	}
	if _, err := s.exec(ctx, q, args...); err != nil {
		return fmt.Errorf("set the progress of run %s: %w", sessionID, err)
	}
	return nil
}

// HeardFrom records that live run sessionID was heard from at now (a
// batch of its events, a poll for what its page sent it). A run marked
// lost is live again, in the status it had.
func (s *SQL) HeardFrom(ctx context.Context, sessionID string, now time.Time) error {
	_, err := s.exec(ctx, `UPDATE console_runs SET seen_at = ?,
		status = CASE WHEN status = ? THEN lost_from ELSE status END, lost_from = ''
		WHERE session_id = ? AND report = '{}'`, now.UnixNano(), StatusLost, sessionID)
	if err != nil {
		return fmt.Errorf("record word from run %s: %w", sessionID, err)
	}
	return nil
}

// ExpireLive marks lost every live run (no report yet, a live status) not
// heard from since before, keeping the status it had; it returns how
// many it marked.
func (s *SQL) ExpireLive(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.exec(ctx, `UPDATE console_runs SET lost_from = status, status = ?
		WHERE report = '{}' AND status IN ('pending', 'starting', 'active', 'idle') AND seen_at < ?`, StatusLost, before.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("mark silent live runs lost: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("mark silent live runs lost: %w", err)
	}
	return n, nil
}

const controlColumns = `id, session_id, kind, text, sender, state, ack, created_at, updated_at`

// AddControl queues a message, an interrupt or a stop for a run.
func (s *SQL) AddControl(ctx context.Context, c *RunControl) error {
	c.State = ControlQueued
	c.UpdatedAt = c.CreatedAt
	q := `INSERT INTO console_run_controls (session_id, kind, text, sender, state, ack, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, '', ?, ?) RETURNING id`
	err := s.queryRow(ctx, q, c.SessionID, c.Kind, c.Text, c.From, c.State, c.CreatedAt.UnixNano(), c.UpdatedAt.UnixNano()).Scan(&c.ID)
	if err != nil {
		return fmt.Errorf("queue a %s for run %s: %w", c.Kind, c.SessionID, err)
	}
	c.Note = c.note()
	return nil
}

// TakeControls hands over a run's queued controls, oldest first, marking
// them delivered: each is taken once, whichever replica is asked.
func (s *SQL) TakeControls(ctx context.Context, sessionID string, now time.Time) ([]*RunControl, error) {
	queued, err := s.controls(ctx, `WHERE session_id = ? AND state = ? ORDER BY id`, sessionID, ControlQueued)
	if err != nil {
		return nil, err
	}
	var out []*RunControl
	for _, c := range queued {
		res, err := s.exec(ctx, `UPDATE console_run_controls SET state = ?, updated_at = ? WHERE id = ? AND state = ?`,
			ControlDelivered, now.UnixNano(), c.ID, ControlQueued)
		if err != nil {
			return nil, fmt.Errorf("deliver control %d: %w", c.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			continue // another replica delivered it
		}
		c.State, c.UpdatedAt = ControlDelivered, now
		c.Note = c.note()
		out = append(out, c)
	}
	return out, nil
}

// AckControl records what the run said of control id: its
// acknowledgement, or why it could not take it (failed).
func (s *SQL) AckControl(ctx context.Context, sessionID string, id int64, ack string, failed bool, now time.Time) (*RunControl, error) {
	state := ControlAcknowledged
	if failed {
		state = ControlRejected
	}
	res, err := s.exec(ctx, `UPDATE console_run_controls SET state = ?, ack = ?, updated_at = ? WHERE id = ? AND session_id = ? AND state = ?`,
		state, ack, now.UnixNano(), id, sessionID, ControlDelivered)
	if err != nil {
		return nil, fmt.Errorf("acknowledge control %d: %w", id, err)
	}
	cs, err := s.controls(ctx, `WHERE id = ? AND session_id = ?`, id, sessionID)
	switch {
	case err != nil:
		return nil, err
	case len(cs) == 0:
		return nil, fmt.Errorf("acknowledge control %d of run %s: %w", id, sessionID, ErrNotFound)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return cs[0], fmt.Errorf("acknowledge control %d: it is %s: %w", id, cs[0].State, ErrFinished)
	}
	return cs[0], nil
}

// Controls lists a run's controls, oldest first.
func (s *SQL) Controls(ctx context.Context, sessionID string) ([]*RunControl, error) {
	return s.controls(ctx, `WHERE session_id = ? ORDER BY id`, sessionID)
}

func (s *SQL) controls(ctx context.Context, where string, args ...any) ([]*RunControl, error) {
	rows, err := s.query(ctx, `SELECT `+controlColumns+` FROM console_run_controls `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read controls: %w", err)
	}
	defer rows.Close()
	var out []*RunControl
	for rows.Next() {
		var c RunControl
		var created, updated int64
		if err := rows.Scan(&c.ID, &c.SessionID, &c.Kind, &c.Text, &c.From, &c.State, &c.Ack, &created, &updated); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				break
			}
			return nil, fmt.Errorf("read controls: %w", err)
		}
		c.CreatedAt, c.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
		c.Note = c.note()
		out = append(out, &c)
	}
	return out, rows.Err()
}
