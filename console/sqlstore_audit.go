package console

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Audit appends an entry and sets its ID.
func (s *SQL) Audit(ctx context.Context, e *AuditEntry) error {
	err := s.queryRow(ctx, `INSERT INTO console_audit (at, actor, action, target, reason) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		e.At.UnixNano(), e.Actor, e.Action, e.Target, e.Reason).Scan(&e.ID)
	if err != nil {
		return fmt.Errorf("audit %s by %q: %w", e.Action, e.Actor, err)
	}
	return nil
}

// AuditLog lists entries newest first.
func (s *SQL) AuditLog(ctx context.Context, limit int) ([]*AuditEntry, error) {
	rows, err := s.query(ctx, `SELECT id, at, actor, action, target, reason FROM console_audit ORDER BY id DESC LIMIT ?`, limitOr(limit, 200))
	if err != nil {
		return nil, fmt.Errorf("read the audit log: %w", err)
	}
	defer rows.Close()
	var out []*AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Reason); err != nil {
			return nil, fmt.Errorf("read the audit log: %w", err)
		}
		e.At = unixTime(at)
		out = append(out, &e)
	}
	return out, rows.Err()
}

// PutSession stores a browser session.
func (s *SQL) PutSession(ctx context.Context, ws *WebSession) error {
	_, err := s.exec(ctx, `INSERT INTO console_sessions (id_hash, login, csrf, expires, owner_id) VALUES (?, ?, ?, ?, ?)`,
		ws.IDHash, ws.Login, ws.CSRF, ws.Expires.UnixNano(), ws.Owner)
	if err != nil {
		return fmt.Errorf("store the session of %s: %w", ws.Login, err)
	}
	return nil
}

// GetSession finds a browser session that has not expired at now.
func (s *SQL) GetSession(ctx context.Context, idHash string, now time.Time) (*WebSession, error) {
	ws := WebSession{IDHash: idHash}
	var expires int64
	err := s.queryRow(ctx, `SELECT login, csrf, expires, owner_id FROM console_sessions WHERE id_hash = ? AND expires > ?`,
		idHash, now.UnixNano()).Scan(&ws.Login, &ws.CSRF, &expires, &ws.Owner)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read a session: %w", err)
	}
	ws.Expires = unixTime(expires)
	return &ws, nil
}

// DeleteSession removes a browser session.
func (s *SQL) DeleteSession(ctx context.Context, idHash string) error {
	if _, err := s.exec(ctx, `DELETE FROM console_sessions WHERE id_hash = ?`, idHash); err != nil {
		return fmt.Errorf("delete a session: %w", err)
	}
	return nil
}
