// Package sandboxtest is what the tests of packages above sandbox need of
// a real sandbox: a skip (or, in CI, a failure) where bwrap cannot
// confine, and the build caches production gives confined commands.
package sandboxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
)

// RequireBwrap skips a test that needs a working sandbox when there is
// none, unless CORE_REQUIRE_BWRAP=1 (as in CI), which makes it a failure.
func RequireBwrap(t testing.TB) {
	t.Helper()
	_, err := exec.LookPath("bwrap")
	if err == nil {
		p := sandbox.New(sandbox.Config{Home: t.TempDir(), Path: os.Getenv("PATH")}).Probe(t.Context())
		if p.Usable {
			return
		}
		err = p.Err()
	}
	if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
		t.Fatalf("CORE_REQUIRE_BWRAP=1 but the sandbox is not usable: %v", err)
	}
	t.Skipf("sandbox not usable here (set CORE_REQUIRE_BWRAP=1 to make this a failure): %v", err)
}

// WarmBuilds gives c what production has (sandbox.ConfigFromEnv): confined
// builds read the user's build cache, read-only, through core's executable
// (here the test binary, whose TestMain must serve the cache program:
// gocache.ServeIfAsked). A test that is not about the build cache takes it
// so that its go test does not compile the standard library from nothing:
// on a busy two-core machine that alone took minutes. The module cache
// stays the test's own (Home's, unless c names one): the user's is never
// written by a test's downloads.
func WarmBuilds(t testing.TB, c sandbox.Config) sandbox.Config {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	c.UserCaches, c.CacheProg, c.HostHome = true, self, home
	if c.ModCache == "" {
		c.ModCache = filepath.Join(c.Home, "cache", "gomod")
	}
	return c
}

// RequireToolchain skips a test whose sandbox sb lacks the toolchain of
// ecosystem ("go", "python", "node", "rust") on this machine, unless
// CORE_REQUIRE_BWRAP=1, which makes it a failure.
func RequireToolchain(t testing.TB, sb *sandbox.Sandbox, ecosystem string) {
	t.Helper()
	if missing := sb.Missing(t.Context(), lang.Project{Ecosystems: []string{ecosystem}}); len(missing) > 0 {
		if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("CORE_REQUIRE_BWRAP=1 but %s", missing[0])
		}
		t.Skip(missing[0])
	}
}

// Toolchain is a bwrap sandbox on this machine's PATH whose confined
// builds read the user's build cache (WarmBuilds), with no module proxy
// (GOPROXY=off), for a test that runs ecosystem's tests confined; it skips
// (RequireBwrap, RequireToolchain) where it cannot.
func Toolchain(t testing.TB, ecosystem string) *sandbox.Sandbox {
	t.Helper()
	RequireBwrap(t)
	sb := sandbox.New(WarmBuilds(t, sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}}))
	RequireToolchain(t, sb, ecosystem)
	return sb
}
