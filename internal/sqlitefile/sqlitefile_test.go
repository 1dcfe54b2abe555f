package sqlitefile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestOpenMakesAPrivateWALDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "deep", "state.db")
	db, err := Open(path, time.Second, "foreign_keys(ON)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	var fk, busy int
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if err := db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1 (the extra pragma)", fk, err)
	}
	if err := db.QueryRow(`PRAGMA busy_timeout`).Scan(&busy); err != nil || busy != 1000 {
		t.Errorf("busy_timeout = %d, %v; want 1000", busy, err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
		}
	}
}
