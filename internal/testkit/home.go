package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// GoHome returns a new temporary directory to give as HOME to code that
// may run the go command. Its Go telemetry is off: in a fresh home, every
// go command otherwise starts a telemetry sidecar that outlives it and
// writes under $HOME/.config/go/telemetry while the test's cleanup removes
// the directory ("directory not empty").
func GoHome(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "go", "telemetry")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mode"), []byte("off"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}
