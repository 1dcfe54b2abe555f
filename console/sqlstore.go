package console

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	// The two databases: modernc's SQLite (as the bot's store) and
	// PostgreSQL through pgx's database/sql driver.
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/coreagent/core/internal/sqlitefile"
)

// SQL is the Store on SQLite (one file, the embedded default) or on
// PostgreSQL (several bot replicas on one database). Queries are written
// once with ? placeholders; rebind turns them into $n for PostgreSQL.
// Times are stored as Unix nanoseconds.
type SQL struct {
	db       *sql.DB
	postgres bool
}

var _ Store = (*SQL)(nil)

// Open opens the store dsn names: a postgres:// or postgresql:// URL, or
// else the path of a SQLite file (created 0600, its directory 0700), and
// brings its schema up to date.
func Open(ctx context.Context, dsn string) (*SQL, error) {
	var s *SQL
	var err error
	switch {
	case dsn == "":
		return nil, errors.New("open console store: no database: give a SQLite path or a postgres:// URL")
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		s, err = openPostgres(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("open console store on PostgreSQL %s: %w", redactDSN(dsn), err)
		}
	default:
		s, err = openSQLite(dsn)
		if err != nil {
			return nil, fmt.Errorf("open console store %s: %w", dsn, err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("open console store: %w", err), s.db.Close())
	}
	return s, nil
}

// redactDSN drops the password of a database URL, for messages.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}

func openSQLite(path string) (*SQL, error) {
	db, err := sqlitefile.Open(path, 30*time.Second) // a lock holder on a loaded machine can be off the CPU for seconds
	if err != nil {
		return nil, err
	}
	return &SQL{db: db}, nil
}

func openPostgres(ctx context.Context, dsn string) (*SQL, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &SQL{db: db, postgres: true}, nil
}

// Close closes the database.
func (s *SQL) Close() error { return s.db.Close() }

// rebind turns ? placeholders into PostgreSQL's $1, $2, …
func (s *SQL) rebind(q string) string {
	if !s.postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (s *SQL) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.rebind(q), args...)
}

func (s *SQL) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, s.rebind(q), args...)
}

func (s *SQL) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.rebind(q), args...)
}
