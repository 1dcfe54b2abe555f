package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/setup"
)

func newSessionLandCmd(e *env) *cobra.Command {
	var (
		asJSON     bool
		consoleURL string
	)
	cmd := &cobra.Command{
		Use:   "land ID",
		Short: "Land a finished session's work, without another model turn",
		Long: `land lands the work of a session whose model called done: after a --dry-run,
a landing declined at the prompt, or a refusal you have dealt with since (for
example your uncommitted work, which the session's change overlaps, now
committed). It lands as the session would have: the same checks before
landing, the same branch or pull request, marked [checks failing] when the
contract its last run recorded is broken. The harness does not run the
checks again and no model is asked anything.

Exit status: 0 landed, 2 landed with a broken contract, 1 failed.`,
		Example: `  core session land 20260102-150405-a1b2c3`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := setup.Home(e.getenv, "")
			if err != nil {
				return err
			}
			store, err := session.LookStore(home)
			if err != nil {
				return fmt.Errorf("no session %s in %s (core session list shows them)", args[0], home)
			}
			rec, err := store.Load(args[0])
			if err != nil {
				return err
			}
			o := session.Options{
				Live:     session.Live{Progress: e.stderr},
				Services: session.Services{Store: store, GitEnv: session.GitEnv(e.getenv), Output: e.stdout},
			}
			if asJSON {
				o.Services.Output = e.stderr // stdout is the report alone
			}
			if err := e.github(&o, rec.Repo); err != nil {
				return err
			}
			rep, err := session.Land(cmd.Context(), rec.ID, o)
			e.report(cmd.Context(), consoleURL, rep, rec.Repo)
			return e.finish(rep, setup.Word(err, setup.FlagWording), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run's report (as in report.json) on stdout when it ends")
	cmd.Flags().StringVar(&consoleURL, "console-url", "", "the console the report is delivered to (default $CORE_CONSOLE_URL; none: it stays local)")
	return cmd
}
