package testkit

import (
	"os"
	"testing"
)

// RequireRoot skips a test that only root can set up or that only matters
// for root (core runs as root in CI and in the Action), saying why, unless
// CORE_REQUIRE_ROOT=1 (as in CI), which makes it a failure.
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CORE_REQUIRE_ROOT") == "1" {
		t.Fatalf("CORE_REQUIRE_ROOT=1 but the tests run as uid %d: %s", os.Geteuid(), why)
	}
	t.Skipf("not root (uid %d): %s; set CORE_REQUIRE_ROOT=1 to make this a failure", os.Geteuid(), why)
}
