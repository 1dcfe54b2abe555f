package bot

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/coreagent/core/gh"
)

// stopCommand is /core stop: cancel the active run on the issue or pull
// request. Only the person who started the run, or a repository admin,
// may stop it; anyone else is refused with a reply that says why, and the
// refusal is logged.
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
	if reason, err := mayStop(ctx, req, run); err != nil {
		return err
	} else if reason != "" {
		zerolog.Ctx(ctx).Info().Str(logKeyActor, req.actor.GetLogin()).Str("run", run.ID).Str("reason", reason).Msg("Refused a stop")
		b.Metrics.refused.Inc(1)
		_, _, err = req.client.CreateComment(ctx, req.owner, req.repo, req.number, "core: "+reason)
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

// isStarter reports whether the person asking started run: by GitHub id
// when both are known (a renamed login's successor is someone else), else
// by login (gh.SameAccount).
func isStarter(req *request, run *Run) bool {
	return gh.SameAccount(gh.Account{Login: req.actor.GetLogin(), ID: req.actor.GetID()}, gh.Account{Login: run.Actor, ID: run.ActorID})
}

// mayStop says why the person asking may not stop run, or "": they
// started it, or they are an admin of the repository (gh.MayAct).
func mayStop(ctx context.Context, req *request, run *Run) (string, error) {
	login := req.actor.GetLogin()
	starter, perm := isStarter(req, run), "none"
	if gh.PermissionDecides(starter, gh.ActStop) {
		var err error
		if perm, err = req.client.Permission(ctx, req.owner, req.repo, login); err != nil {
			return "", err
		}
	}
	if gh.MayAct(perm, starter, gh.ActStop) {
		return "", nil
	}
	return fmt.Sprintf("@%s, only @%s, who started this run, or a repository admin can stop it.", login, run.Actor), nil
}
