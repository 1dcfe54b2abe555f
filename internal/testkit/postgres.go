package testkit

import (
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// PostgresURL is the test database (CORE_TEST_DATABASE_URL), or "" when
// the PostgreSQL tests skip; with CORE_REQUIRE_POSTGRES=1 (CI) a missing
// database fails the test instead.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("CORE_TEST_DATABASE_URL")
	if u == "" && os.Getenv("CORE_REQUIRE_POSTGRES") == "1" {
		t.Fatal("CORE_REQUIRE_POSTGRES=1 but CORE_TEST_DATABASE_URL is empty: point it at a PostgreSQL database")
	}
	return u
}

// PostgresSchema makes a fresh schema, named prefix and a random suffix,
// in the test database, dropped when the test ends, and returns a URL
// whose connections use it. Without a database the test skips (see
// PostgresURL).
func PostgresSchema(t testing.TB, prefix string) string {
	t.Helper()
	base := PostgresURL(t)
	if base == "" {
		t.Skip("no PostgreSQL: set CORE_TEST_DATABASE_URL (CI does)")
	}
	name := prefix + strings.ToLower(rand.Text()[:12])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP SCHEMA " + name + " CASCADE") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}
