package console

import (
	"context"
	"fmt"
)

// PutAnchor keeps a, unless its position is kept already: then the same
// head is a no-op and another is ErrAnchorConflict.
func (s *SQL) PutAnchor(ctx context.Context, a *Anchor) error {
	res, err := s.exec(ctx, `INSERT INTO console_anchors (login, chain, seq, head, command_id, at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (login, chain, seq) DO NOTHING`,
		a.Login, a.Chain, a.Seq, a.Head, a.Command, a.At.UnixNano())
	if err != nil {
		return fmt.Errorf("anchor line %d of chain %s for %s: %w", a.Seq, a.Chain, a.Login, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	var head string
	if err := s.queryRow(ctx, `SELECT head FROM console_anchors WHERE login = ? AND chain = ? AND seq = ?`,
		a.Login, a.Chain, a.Seq).Scan(&head); err != nil {
		return fmt.Errorf("anchor line %d of chain %s for %s: %w", a.Seq, a.Chain, a.Login, err)
	}
	if head != a.Head {
		return fmt.Errorf("anchor line %d of chain %s for %s: %w", a.Seq, a.Chain, a.Login, ErrAnchorConflict)
	}
	return nil
}

// Anchors lists login's anchors of chain (all when ""), by chain and
// newest line first.
func (s *SQL) Anchors(ctx context.Context, login, chain string, limit int) ([]*Anchor, error) {
	q := `SELECT login, chain, seq, head, command_id, at FROM console_anchors WHERE login = ?`
	args := []any{login}
	if chain != "" {
		q += ` AND chain = ?`
		args = append(args, chain)
	}
	rows, err := s.query(ctx, q+` ORDER BY chain, seq DESC LIMIT ?`, append(args, limitOr(limit, 1000))...)
	if err != nil {
		return nil, fmt.Errorf("list the anchors of %s: %w", login, err)
	}
	defer rows.Close()
	var out []*Anchor
	for rows.Next() {
		var a Anchor
		var at int64
		if err := rows.Scan(&a.Login, &a.Chain, &a.Seq, &a.Head, &a.Command, &at); err != nil {
			return nil, fmt.Errorf("list the anchors of %s: %w", login, err)
		}
		a.At = unixTime(at)
		out = append(out, &a)
	}
	return out, rows.Err()
}
