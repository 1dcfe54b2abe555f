package mcptool

import (
	"os"
	"testing"

	"github.com/coreagent/core/sandbox/boxagent"
)

func TestMain(m *testing.M) {
	// Started inside a box as its agent, as core is (the repository's
	// servers run in the run's box).
	boxagent.AgentIfAsked(os.Args)
	os.Exit(m.Run())
}
