package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/live"
)

// messenger is a runner that can hand messages and interrupts to a run it
// carries out itself (the LocalRunner); runs on Actions read their
// comments themselves (handOff leaves them be).
type messenger interface {
	Message(runID string, m live.Message) (reply string, here bool, err error)
	Interrupt(runID, from string) (reply string, here bool, err error)
}

var _ messenger = (*LocalRunner)(nil)

// handOff gives a /core command that names no command of the bot's
// (/core also update the README) or /core interrupt to the run active on
// the issue or pull request, when this process carries it out. Only the
// person who started the run may message or interrupt it: anyone else is
// refused with a reply that says why, and the refusal is logged. handled is
// false when there is no such run here.
func (b *Base) handOff(ctx context.Context, req *request, cmd gh.Command) (handled bool, err error) {
	run, err := b.Store.ActiveRun(ctx, req.fullName(), req.number)
	if err != nil || run == nil {
		return false, err
	}
	m, ok := b.Runner.(messenger)
	if !ok {
		// A run on Actions reads its issue's comments itself: the dispatch
		// named its starter (the actor input), and the job takes their
		// message, or refuses anyone else's with a reply. The bot stays
		// out of it.
		zerolog.Ctx(ctx).Info().Str(logKeyActor, req.actor.GetLogin()).Str(logKeyRun, run.ID).Msg("Left a message to the run on Actions")
		return true, nil
	}
	reply := func(text string) error {
		_, _, err := req.client.CreateComment(ctx, req.owner, req.repo, req.number, "core: "+text)
		return err
	}
	login := req.actor.GetLogin()
	act := gh.ActMessage
	if cmd.Name == "interrupt" {
		act = gh.ActInterrupt
	}
	if !gh.MayAct("", isStarter(req, run), act) {
		reason := fmt.Sprintf("@%s, only @%s, who started this run, may message or interrupt it.", login, run.Actor)
		zerolog.Ctx(ctx).Info().Str(logKeyActor, login).Str(logKeyRun, run.ID).Str("reason", reason).Msg("Refused a message")
		b.Metrics.refused.Inc(1)
		return true, reply(reason)
	}
	from := "@" + login
	var ack string
	var here bool
	if act == gh.ActInterrupt {
		ack, here, err = m.Interrupt(run.ID, from)
	} else {
		ack, here, err = m.Message(run.ID, live.Message{From: from, Text: strings.TrimSpace(cmd.Name + " " + cmd.Args)})
	}
	if !here {
		return false, nil
	}
	if err != nil {
		return true, reply(fmt.Sprintf("%s, %v.", from, err))
	}
	zerolog.Ctx(ctx).Info().Str(logKeyActor, login).Str(logKeyRun, run.ID).Msg(ack)
	if req.commentID != 0 {
		_ = req.client.AddReaction(ctx, req.owner, req.repo, req.commentID, "+1")
	}
	return true, nil
}
