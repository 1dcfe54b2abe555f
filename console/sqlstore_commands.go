package console

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

const commandColumns = `id, target, repo, instruction, max_turns, timeout, state, claim,
	lease_until, attempts, result, created_at, updated_at, resume, budget_usd`

// claimable is the condition on a command that a claim may take: queued,
// or claimed under a lease that ran out (the first ? is now).
const claimable = `(state = 'queued' OR (state = 'claimed' AND lease_until < ?))`

// Enqueue stores a new queued command.
func (s *SQL) Enqueue(ctx context.Context, c *Command) error {
	now := c.CreatedAt
	c.State, c.UpdatedAt = CommandQueued, now
	err := s.queryRow(ctx, `INSERT INTO console_commands (target, repo, instruction, max_turns, timeout, state,
		claim, lease_until, attempts, result, created_at, updated_at, resume, budget_usd)
		VALUES (?, ?, ?, ?, ?, ?, '', 0, 0, '', ?, ?, ?, ?) RETURNING id`,
		c.Target, c.Repo, c.Instruction, c.Limits.MaxTurns, c.Limits.Timeout, c.State,
		now.UnixNano(), now.UnixNano(), c.Resume, c.Limits.BudgetUSD).Scan(&c.ID)
	if err != nil {
		return fmt.Errorf("enqueue a command for %s: %w", c.Target, err)
	}
	return nil
}

// Claim takes target's oldest claimable command. The UPDATE re-checks the
// condition, so of two claimers racing for one command (in one process or
// on two replicas) one updates the row and the other updates nothing and
// looks again.
func (s *SQL) Claim(ctx context.Context, target, claim string, now time.Time, lease time.Duration) (*Command, error) {
	for range 5 {
		var id int64
		err := s.queryRow(ctx, `SELECT id FROM console_commands WHERE target = ? AND `+claimable+` ORDER BY id LIMIT 1`,
			target, now.UnixNano()).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("claim a command for %s: %w", target, err)
		}
		c, err := scanCommand(s.queryRow(ctx, `UPDATE console_commands SET state = 'claimed', claim = ?,
			lease_until = ?, attempts = attempts + 1, updated_at = ?
			WHERE id = ? AND `+claimable+` RETURNING `+commandColumns,
			claim, now.Add(lease).UnixNano(), now.UnixNano(), id, now.UnixNano()))
		if errors.Is(err, sql.ErrNoRows) {
			continue // another claimer took it first
		}
		if err != nil {
			return nil, fmt.Errorf("claim command %d for %s: %w", id, target, err)
		}
		return c, nil
	}
	return nil, nil
}

// Finish records a result once, from the claim that holds the command.
func (s *SQL) Finish(ctx context.Context, id int64, target string, res *Result, now time.Time) (*Command, error) {
	c, err := s.command(ctx, id, target)
	if err != nil {
		return nil, err
	}
	switch {
	case c.State != CommandClaimed:
		if c.Result != nil {
			return c, ErrFinished
		}
		return c, ErrNotClaimer
	case c.Claim != res.Claim:
		return c, ErrNotClaimer
	}
	state, result, claim := resultState(res.Status), "", c.Claim
	if state == CommandQueued {
		claim = ""
	} else {
		b, err := json.Marshal(res)
		if err != nil {
			return nil, fmt.Errorf("record the result of command %d: %w", id, err)
		}
		result = string(b)
	}
	out, err := scanCommand(s.queryRow(ctx, `UPDATE console_commands SET state = ?, result = ?, claim = ?,
		lease_until = 0, updated_at = ? WHERE id = ? AND state = 'claimed' AND claim = ? RETURNING `+commandColumns,
		state, result, claim, now.UnixNano(), id, res.Claim))
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotClaimer // the lease ran out and another claim took it meanwhile
	}
	if err != nil {
		return nil, fmt.Errorf("record the result of command %d: %w", id, err)
	}
	return out, nil
}

// Renew extends a live claim's lease.
func (s *SQL) Renew(ctx context.Context, id int64, target, claim string, until time.Time) (*Command, error) {
	c, err := scanCommand(s.queryRow(ctx, `UPDATE console_commands SET lease_until = ?
		WHERE id = ? AND target = ? AND state = 'claimed' AND claim = ? RETURNING `+commandColumns,
		until.UnixNano(), id, target, claim))
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("renew the lease of command %d: %w", id, err)
	}
	c, err = s.command(ctx, id, target)
	switch {
	case err != nil:
		return nil, err
	case c.Result != nil:
		return c, ErrFinished
	}
	return c, ErrNotClaimer
}

// resultState is the state a result status leaves a command in.
func resultState(status string) string {
	switch status {
	case CommandReleased:
		return CommandQueued
	case CommandFailed:
		return CommandFailed
	case CommandRefused:
		return CommandRefused
	}
	return CommandDone
}

func (s *SQL) command(ctx context.Context, id int64, target string) (*Command, error) {
	c, err := scanCommand(s.queryRow(ctx, `SELECT `+commandColumns+` FROM console_commands WHERE id = ? AND target = ?`, id, target))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read command %d: %w", id, err)
	}
	return c, nil
}

// Commands lists target's commands, newest first.
func (s *SQL) Commands(ctx context.Context, target string, limit int) ([]*Command, error) {
	rows, err := s.query(ctx, `SELECT `+commandColumns+` FROM console_commands WHERE target = ? ORDER BY id DESC LIMIT ?`,
		target, limitOr(limit, 100))
	if err != nil {
		return nil, fmt.Errorf("list commands of %s: %w", target, err)
	}
	defer rows.Close()
	var out []*Command
	for rows.Next() {
		c, err := scanCommand(rows)
		if err != nil {
			return nil, fmt.Errorf("list commands of %s: %w", target, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func scanCommand(row interface{ Scan(...any) error }) (*Command, error) {
	var c Command
	var lease, created, updated int64
	var result string
	if err := row.Scan(&c.ID, &c.Target, &c.Repo, &c.Instruction, &c.Limits.MaxTurns, &c.Limits.Timeout, &c.State,
		&c.Claim, &lease, &c.Attempts, &result, &created, &updated, &c.Resume, &c.Limits.BudgetUSD); err != nil {
		return nil, err
	}
	c.LeaseUntil, c.CreatedAt, c.UpdatedAt = unixTime(lease), unixTime(created), unixTime(updated)
	if result != "" {
		c.Result = &Result{}
		if err := json.Unmarshal([]byte(result), c.Result); err != nil {
			return nil, fmt.Errorf("command %d: its result is not JSON: %w", c.ID, err)
		}
	}
	return &c, nil
}
