package bot

import (
	"context"
	"fmt"
)

// stopCommand is /core stop: cancel the active run on the issue or pull
// request. It needs the same permission as /core fix.
type stopCommand struct{}

func (stopCommand) name() string { return "stop" }

func (stopCommand) run(ctx context.Context, b *Base, req *request) error {
	reason, reply, err := b.authorize(ctx, req)
	if err != nil {
		return err
	}
	if reason != "" {
		if reply {
			_, _, err = req.client.CreateComment(ctx, req.owner, req.repo, req.number, "core: "+reason)
		}
		return err
	}
	run, err := b.Store.ActiveRun(ctx, req.fullName(), req.number)
	if err != nil {
		return err
	}
	if run == nil {
		_, _, err = req.client.CreateComment(ctx, req.owner, req.repo, req.number, "core: there is no run to stop here.")
		return err
	}
	if err := b.Runner.Stop(ctx, req.client, run); err != nil {
		return fmt.Errorf("stop run %s: %w", run.ID, err)
	}
	if req.commentID != 0 {
		_ = req.client.AddReaction(ctx, req.owner, req.repo, req.commentID, "+1")
	}
	return nil
}
