package setup

import (
	"context"
	"errors"
	"fmt"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/review"
)

// ReviewPull makes opts a review of pull request number of owner/name:
// its head (fetched from refs/pull/N/head for a fork) against its base,
// with the person's instruction (/core review ARGS), if any. A closed or
// merged pull request is refused, the user's to act on.
func ReviewPull(ctx context.Context, c *gh.Client, owner, name string, number int, asked string, opts *session.Options) error {
	p, err := review.Pull(ctx, c, owner, name, number)
	var closed *review.ClosedError
	if errors.As(err, &closed) {
		return &session.ConfigError{Option: "pr", Err: err}
	}
	if err != nil {
		return session.StartError(fmt.Errorf("review pull request #%d: %w", number, err))
	}
	opts.Goal.Repo = owner + "/" + name
	opts.Goal.PullRequest, opts.Goal.Pull = number, p
	opts.Goal.Review = &review.Goal{Base: p.BaseRef}
	opts.Goal.Prompt = review.Instruction(fmt.Sprintf("pull request #%d (%s)", number, p.Title), p.BaseRef, asked)
	return nil
}

// ReviewLocal makes opts a review of the local repository repo's HEAD
// against base.
func ReviewLocal(repo, base, asked string, opts *session.Options) {
	opts.Goal.Repo, opts.Goal.Clean = repo, true
	opts.Goal.Review = &review.Goal{Base: base}
	opts.Goal.Prompt = review.Instruction("the current branch", base, asked)
}
