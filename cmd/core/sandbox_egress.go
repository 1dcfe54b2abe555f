package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/sandbox/egress"
)

// newSandboxEgressCmd is the forwarder a dependency step runs its command
// behind, inside the step (sandbox/egress_forward.go); people never run
// it.
func newSandboxEgressCmd() *cobra.Command {
	var socket, listen string
	cmd := &cobra.Command{
		Use:    "egress --socket PATH --listen ADDR -- COMMAND...",
		Short:  "Run a dependency step's command with its proxy on loopback, passed to core's socket; core starts it inside the step",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if socket == "" || listen == "" {
				return fmt.Errorf("--socket and --listen are both needed, got %q and %q", socket, listen)
			}
			code, err := egress.RunForward(socket, listen, args)
			if err != nil {
				return err
			}
			if code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "core's proxy socket")
	cmd.Flags().StringVar(&listen, "listen", "", "the loopback address the step's clients use as their proxy")
	return cmd
}
