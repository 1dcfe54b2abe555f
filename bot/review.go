package bot

import (
	"context"
	"errors"

	"github.com/rs/zerolog"

	"github.com/coreagent/core/session/review"
)

// reviewCommand is /core review [instruction] (and the core:review label)
// on a pull request: a review run, which changes no code and posts one
// review of the head. On an issue, or on a closed or merged pull request,
// the person is told why not.
type reviewCommand struct{}

func (reviewCommand) name() string { return "review" }

// notAPull answers /core review on an issue.
const notAPull = "core: `/core review` reviews a pull request: comment it on one (on an issue, `/core fix` opens a pull request that fixes it)."

func (reviewCommand) run(ctx context.Context, b *Base, req *request) error {
	if !req.isPull {
		_, _, err := req.client.CreateComment(ctx, req.owner, req.repo, req.number, notAPull)
		return err
	}
	_, err := review.Pull(ctx, req.client, req.owner, req.repo, req.number)
	var closed *review.ClosedError
	if errors.As(err, &closed) {
		zerolog.Ctx(ctx).Info().Str("reason", err.Error()).Msg("Refused a review")
		b.Metrics.refused.Inc(1)
		_, _, err := req.client.CreateComment(ctx, req.owner, req.repo, req.number, "core: "+err.Error())
		return err
	}
	if err != nil {
		return err
	}
	req.kind = KindReview
	return b.start(ctx, req)
}
