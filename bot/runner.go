package bot

import (
	"context"

	"github.com/coreagent/core/gh"
)

// Runner carries out accepted runs: on GitHub Actions (ActionsRunner) or in
// the bot's own process (LocalRunner).
type Runner interface {
	// Start begins a run; it returns once the run is handed over (a
	// dispatched workflow, a queued local session), not when it ends.
	Start(ctx context.Context, client *gh.Client, run *Run, defaultBranch string) error
	// Stop stops an active run as well as it can.
	Stop(ctx context.Context, client *gh.Client, run *Run) error
}
