package main

import (
	"github.com/spf13/cobra"

	"github.com/coreagent/core/action"
)

func newActionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "action",
		Short: "Run as the GitHub Action (the Docker image's entrypoint)",
		Long: `action is the GitHub Action's entrypoint. It reads the Action's inputs
(INPUT_* variables) and the event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH),
picks a mode, and runs it:

  fix      an issue: a /core fix comment, the core:fix label, or mode: fix
  resolve  a pull request: /core fix on it, the core:fix label, or mode: resolve;
           the fix lands as new commits on its head
  forge    on a schedule: the oldest unclaimed forge brief, when the
           repository variable CORE_FORGE_ENABLED is true

The person who asked must have write, maintain or admin permission. Outputs:
status, session_id, branch, pr_url, turns, verified, contract, checks_passed,
checks_failed, prompt_tokens, completion_tokens, cost (the report's cost_usd;
empty when no price is set). Exit status 0 for done, partial or
budget_exhausted (with a warning), 1 for failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := action.Run(cmd.Context(), action.Env{Getenv: e.getenv, Stdout: e.rawStdout, Stderr: e.rawStderr, Self: e.self, Observer: e.observer()})
			if err == action.ErrFailed {
				return exitCode(1)
			}
			return err
		},
	}
}
