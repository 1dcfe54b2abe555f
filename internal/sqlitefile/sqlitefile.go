// Package sqlitefile opens a private SQLite database file the way core's
// stores need it: the file 0600 in a 0700 directory, WAL with
// synchronous=NORMAL (a process crash loses nothing committed), and every
// transaction BEGIN IMMEDIATE (a read-then-write cannot interleave).
package sqlitefile

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the SQLite driver
)

// Open opens (creating it when missing) the database at path. busy is how
// long a connection waits for another's lock; pragmas are run on every new
// connection after the ones above, e.g. "foreign_keys(ON)".
func Open(path string, busy time.Duration, pragmas ...string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(f.Chmod(0o600), f.Close()); err != nil {
		return nil, err
	}
	// busy_timeout first: the pragmas after it may wait for a lock.
	all := append([]string{fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()), "journal_mode(WAL)", "synchronous(NORMAL)"}, pragmas...)
	q := url.Values{"_pragma": all, "_txlock": {"immediate"}}
	return sql.Open("sqlite", (&url.URL{Scheme: "file", Path: abs, RawQuery: q.Encode()}).String())
}
