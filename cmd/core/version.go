package main

import (
	"fmt"

	"github.com/coreagent/core/internal/buildinfo"

	"github.com/spf13/cobra"
)

// version describes this binary (buildinfo.Version).
func version() string { return buildinfo.Version() }

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print core's version, the revision it was built from, and its Go",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(e.stdout, version())
			return nil
		},
	}
}
