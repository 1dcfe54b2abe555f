package session

import (
	"os"
	"os/exec"
	"testing"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/sandboxtest"
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
	sb := sandbox.New(sandboxtest.WarmBuilds(t, sandbox.Config{Home: home, Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0]}))
	t.Cleanup(func() { sb.Close() })
	return sb
}
