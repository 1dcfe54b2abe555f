package console

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// schema creates the console's tables; every statement is idempotent.
// {id} is the dialect's auto-increment key. The audit and the anchor
// tables refuse UPDATE and DELETE through triggers: they are append-only.
func (s *SQL) schema() []string {
	id := "INTEGER PRIMARY KEY AUTOINCREMENT"
	if s.postgres {
		id = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS console_runs (
			session_id TEXT PRIMARY KEY, repo TEXT NOT NULL, trigger_kind TEXT NOT NULL, actor TEXT NOT NULL,
			status TEXT NOT NULL, verdict TEXT NOT NULL, turns BIGINT NOT NULL, tokens BIGINT NOT NULL,
			duration_ns BIGINT NOT NULL, pr_url TEXT NOT NULL, started_at BIGINT NOT NULL,
			received_at BIGINT NOT NULL, report TEXT NOT NULL, owner_id TEXT NOT NULL DEFAULT '')`,
		`CREATE INDEX IF NOT EXISTS console_runs_started ON console_runs (started_at)`,
		`CREATE TABLE IF NOT EXISTS console_commands (
			id {id}, target TEXT NOT NULL, repo TEXT NOT NULL, instruction TEXT NOT NULL,
			max_turns BIGINT NOT NULL, timeout TEXT NOT NULL, state TEXT NOT NULL, claim TEXT NOT NULL,
			lease_until BIGINT NOT NULL, attempts BIGINT NOT NULL, result TEXT NOT NULL,
			created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS console_commands_target ON console_commands (target, state, id)`,
		`CREATE TABLE IF NOT EXISTS console_audit (
			id {id}, at BIGINT NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
			target TEXT NOT NULL, reason TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS console_anchors (
			login TEXT NOT NULL, chain TEXT NOT NULL, seq BIGINT NOT NULL, head TEXT NOT NULL,
			command_id BIGINT NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (login, chain, seq))`,
		`CREATE TABLE IF NOT EXISTS console_run_events (
			session_id TEXT NOT NULL, seq BIGINT NOT NULL, at BIGINT NOT NULL, event TEXT NOT NULL,
			PRIMARY KEY (session_id, seq))`,
		`CREATE TABLE IF NOT EXISTS console_run_controls (
			id {id}, session_id TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL, sender TEXT NOT NULL,
			state TEXT NOT NULL, ack TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS console_run_controls_run ON console_run_controls (session_id, state, id)`,
		`CREATE TABLE IF NOT EXISTS console_sessions (
			id_hash TEXT PRIMARY KEY, login TEXT NOT NULL, csrf TEXT NOT NULL, expires BIGINT NOT NULL,
			owner_id TEXT NOT NULL DEFAULT '')`,
	}
	for _, table := range []string{"console_audit", "console_anchors", "console_run_events"} {
		stmts = append(stmts, appendOnly(table, s.postgres)...)
	}
	for i, q := range stmts {
		stmts[i] = strings.ReplaceAll(q, "{id}", id)
	}
	return stmts
}

// appendOnly makes table refuse UPDATE and DELETE through triggers.
func appendOnly(table string, postgres bool) []string {
	if postgres {
		return []string{
			`CREATE OR REPLACE FUNCTION ` + table + `_append_only() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION '` + table + ` is append-only'; END $$`,
			`DROP TRIGGER IF EXISTS ` + table + `_frozen ON ` + table,
			`CREATE TRIGGER ` + table + `_frozen BEFORE UPDATE OR DELETE ON ` + table + `
			FOR EACH ROW EXECUTE FUNCTION ` + table + `_append_only()`,
		}
	}
	var out []string
	for _, op := range []string{"UPDATE", "DELETE"} {
		out = append(out, fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %s_no_%s
			BEFORE %s ON %s BEGIN SELECT RAISE(ABORT, '%s is append-only'); END`,
			table, strings.ToLower(op), op, table, table))
	}
	return out
}

// migrate creates what is missing, in one transaction; on PostgreSQL an
// advisory lock keeps replicas starting together from racing.
func (s *SQL) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if s.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7170017)`); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
	}
	for _, q := range s.schema() {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	for _, c := range addedColumns() {
		if err := s.addColumn(ctx, tx, c); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// column is a column added to a table after its first release: a store
// made before it gets it, with its default, on the next open.
type column struct{ table, name, decl string }

// addedColumns are the columns added since, in order. console_runs.owner_id (the identity
// that first reported a run) is ” on rows stored before it existed: such
// a row is claimed by the next report from the login in its actor column
// (see PutRun).
func addedColumns() []column {
	return []column{
		{"console_runs", "owner_id", "TEXT NOT NULL DEFAULT ''"},
		// When a live run was last heard from, and the status a run had
		// when it was marked lost (see ExpireLive).
		{"console_runs", "seen_at", "BIGINT NOT NULL DEFAULT 0"},
		{"console_runs", "lost_from", "TEXT NOT NULL DEFAULT ''"},
		// What a live run's events told of it before its report
		// (LiveProgress, as JSON: its goal and cost).
		{"console_runs", "live_progress", "TEXT NOT NULL DEFAULT ''"},
		// A command that resumes a session, and its budget (a top-up).
		{"console_commands", "resume", "TEXT NOT NULL DEFAULT ''"},
		{"console_commands", "budget_usd", "DOUBLE PRECISION NOT NULL DEFAULT 0"},
		// Who signed in, by account (WebSession.Owner).
		{"console_sessions", "owner_id", "TEXT NOT NULL DEFAULT ''"},
	}
}

func (s *SQL) addColumn(ctx context.Context, tx *sql.Tx, c column) error {
	if s.postgres {
		_, err := tx.ExecContext(ctx, `ALTER TABLE `+c.table+` ADD COLUMN IF NOT EXISTS `+c.name+` `+c.decl)
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?`, c.table, c.name).Scan(&n); err != nil {
		return fmt.Errorf("look for %s.%s: %w", c.table, c.name, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `ALTER TABLE `+c.table+` ADD COLUMN `+c.name+` `+c.decl); err != nil {
		return fmt.Errorf("add %s.%s: %w", c.table, c.name, err)
	}
	return nil
}
