package tools

import (
	"os"
	"testing"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/boxagent"
)

func TestMain(m *testing.M) {
	// Started inside a box as its agent, as core is (run_shell's
	// background commands).
	boxagent.AgentIfAsked(os.Args)
	sandbox.EgressIfAsked(os.Args) // and inside a dependency step as its forwarder
	os.Exit(m.Run())
}
