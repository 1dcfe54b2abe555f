package tools

import (
	"os"
	"testing"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/gocache"
)

func TestMain(m *testing.M) {
	// Started inside a box as its agent, as core is (run_shell's
	// background commands).
	gocache.ServeIfAsked(os.Args) // started inside the sandbox as GOCACHEPROG, as core is
	boxagent.AgentIfAsked(os.Args)
	egress.IfAsked(os.Args) // and inside a dependency step as its forwarder
	os.Exit(m.Run())
}
