package bot

import (
	"context"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/telemetry"
)

// traced handles a delivery inside its own span (telemetry.Webhook),
// which records how long the handling took.
type traced struct {
	githubapp.EventHandler
	tel *telemetry.Telemetry
}

func (t traced) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	ctx, done := t.tel.Webhook(ctx, eventType, deliveryID)
	err := t.EventHandler.Handle(ctx, eventType, deliveryID, payload)
	done(err)
	return err
}

// dispatch hands run to the Runner inside its own span
// (telemetry.Dispatch), linked to the run's trace, which the run's id
// names: the Action's run takes it as its run_id input, a local run from
// the context.
func (b *Base) dispatch(ctx context.Context, client *gh.Client, run *Run, defaultBranch string) error {
	mode := "actions"
	if _, local := b.Runner.(*LocalRunner); local {
		mode = "local"
	}
	ctx, done := b.Telemetry.Dispatch(ctx, run.ID, run.Repo, mode)
	err := b.Runner.Start(ctx, client, run, defaultBranch)
	done(err)
	return err
}
