package setup

import (
	"context"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/resolver"
	"github.com/coreagent/core/session"
)

// Kinds of work a request for a run asks for.
const (
	KindFix     = "fix"     // an issue → a draft pull request
	KindResolve = "resolve" // a pull request → commits on its head
	KindReview  = "review"  // a pull request → one review of its head
)

// Work is what a run was asked to do, by a comment, a label or a dispatch.
type Work struct {
	Kind        string
	Client      *gh.Client
	Owner, Repo string
	Number      int // the issue or the pull request
	// Instruction is what the person asked (/core fix ...); may be empty.
	Instruction string
}

// Run does the work with opts: the one place where fixing an issue and
// resolving a pull request part. The options get the repository and the
// goal; the Action and the bot's local runner both come here.
func Run(ctx context.Context, w Work, opts session.Options) (*session.Report, error) {
	opts.Goal.Repo = w.Owner + "/" + w.Repo
	if w.Kind == KindReview {
		if err := ReviewPull(ctx, w.Client, w.Owner, w.Repo, w.Number, w.Instruction, &opts); err != nil {
			return nil, err
		}
		return session.Run(ctx, opts)
	}
	if w.Kind == KindResolve {
		return resolver.Run(ctx, resolver.Request{Client: w.Client, Owner: w.Owner, Repo: w.Repo, Number: w.Number, Instruction: w.Instruction}, opts)
	}
	opts.Goal.Issue, opts.Goal.Prompt = w.Number, w.Instruction
	return session.Run(ctx, opts)
}
