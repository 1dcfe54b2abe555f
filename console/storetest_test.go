package console

import (
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// stores returns the stores a test runs against: SQLite always, and
// PostgreSQL when CORE_TEST_DATABASE_URL names a database (required when
// CORE_REQUIRE_POSTGRES=1, as CI sets).
func stores(t *testing.T) map[string]func(t *testing.T) *SQL {
	t.Helper()
	out := map[string]func(t *testing.T) *SQL{"sqlite": sqliteStore}
	if postgresURL(t) != "" {
		out["postgres"] = func(t *testing.T) *SQL { return postgresStore(t, "") }
	}
	return out
}

func sqliteStore(t *testing.T) *SQL {
	t.Helper()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// postgresURL is the test database, or "" when the PostgreSQL tests skip.
func postgresURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("CORE_TEST_DATABASE_URL")
	if u == "" && os.Getenv("CORE_REQUIRE_POSTGRES") == "1" {
		t.Fatal("CORE_REQUIRE_POSTGRES=1 but CORE_TEST_DATABASE_URL is empty: point it at a PostgreSQL database")
	}
	return u
}

// postgresSchema makes a fresh schema in the test database, dropped when
// the test ends, and returns a URL whose connections use it.
func postgresSchema(t *testing.T) string {
	t.Helper()
	base := postgresURL(t)
	if base == "" {
		t.Skip("no PostgreSQL: set CORE_TEST_DATABASE_URL (CI does)")
	}
	name := "t_" + strings.ToLower(rand.Text()[:12])
	admin, err := sql.Open("pgx", base)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() })
	_, err = admin.ExecContext(t.Context(), "CREATE SCHEMA "+name)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = admin.Exec("DROP SCHEMA " + name + " CASCADE") })
	u, err := url.Parse(base)
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// postgresStore opens a store on dsn, or on a fresh schema when dsn is "".
func postgresStore(t *testing.T, dsn string) *SQL {
	t.Helper()
	if dsn == "" {
		dsn = postgresSchema(t)
	}
	s, err := Open(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
