package tools

import (
	"fmt"
	"os"
	"testing"

	"github.com/coreagent/core/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 4 && os.Args[1] == "sandbox" && os.Args[2] == "agent" && os.Args[3] == "--socket" {
		// Started inside a box as its agent, as core is (run_shell's
		// background commands).
		if err := sandbox.RunBoxAgent(os.Args[4], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
