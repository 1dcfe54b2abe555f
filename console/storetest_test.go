package console

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// stores returns the stores a test runs against: SQLite always, and
// PostgreSQL when CORE_TEST_DATABASE_URL names a database (required when
// CORE_REQUIRE_POSTGRES=1, as CI sets).
func stores(t *testing.T) map[string]func(t *testing.T) *SQL {
	t.Helper()
	out := map[string]func(t *testing.T) *SQL{"sqlite": sqliteStore}
	if testkit.PostgresURL(t) != "" {
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

// postgresStore opens a store on dsn, or on a fresh schema when dsn is "".
func postgresStore(t *testing.T, dsn string) *SQL {
	t.Helper()
	if dsn == "" {
		dsn = testkit.PostgresSchema(t, "t_")
	}
	s, err := Open(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
