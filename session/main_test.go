package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreagent/core/sandbox/gocache"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/egress"
)

func TestMain(m *testing.M) {
	gocache.ServeIfAsked(os.Args)  // started inside the sandbox as GOCACHEPROG, as core is
	boxagent.AgentIfAsked(os.Args) // started inside a box as its agent, as core is
	egress.IfAsked(os.Args)        // started inside a dependency step as its forwarder, as core is
	os.Exit(m.Run())
}

// boxSandbox is a bwrap sandbox whose boxes run this test binary as their
// agent. Without a usable sandbox the test is skipped, unless
// CORE_REQUIRE_BWRAP=1 (as in CI).
func boxSandbox(t *testing.T, home string) *sandbox.Sandbox {
	t.Helper()
	_, err := exec.LookPath("bwrap")
	if err == nil {
		p := sandbox.New(sandbox.Config{Home: t.TempDir(), Path: os.Getenv("PATH")}).Probe(t.Context())
		if !p.Usable {
			err = p.Err()
		}
	}
	if err != nil {
		if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("CORE_REQUIRE_BWRAP=1 but the sandbox is not usable: %v", err)
		}
		t.Skipf("sandbox not usable here (set CORE_REQUIRE_BWRAP=1 to make this a failure): %v", err)
	}
	sb := sandbox.New(warmBuilds(t, sandbox.Config{Home: home, Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0]}))
	t.Cleanup(func() { sb.Close() })
	return sb
}

// warmBuilds gives c what production has (sandbox.ConfigFromEnv): confined
// builds read the user's build cache, read-only, through core's executable
// (here the test binary). A test that is not about the build cache takes
// it so that its go test does not compile the standard library from
// nothing: on a busy two-core machine that alone took minutes. The module
// cache stays the test's own (Home's, unless c names one): the user's is
// never written by a test's downloads.
func warmBuilds(t *testing.T, c sandbox.Config) sandbox.Config {
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
