// Package resolver turns a pull request into a session that lands as new
// commits on its head: the instruction comes from the pull request's title
// and body, the /core fix instruction, the failing check runs with their
// annotations, and the unresolved review comments.
package resolver

import (
	"context"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session"
)

// Request is a pull request to resolve.
type Request struct {
	Client      *gh.Client
	Owner, Repo string
	Number      int
	// Instruction is what the person asked, from /core fix; may be empty.
	Instruction string
}

// Run resolves the pull request: a session based on its head, landing on
// it. A pull request whose head lives in a fork lands as a review with
// suggested changes: core fetches the head through this repository, runs
// its code only in the sandbox, and pushes nothing to the fork.
func Run(ctx context.Context, req Request, opts session.Options) (*session.Report, error) {
	pr, err := req.Client.PullRequest(ctx, req.Owner, req.Repo, req.Number)
	if err != nil {
		return nil, session.StartError(err)
	}
	if err := session.LandablePull(pr, req.Owner, req.Repo); err != nil {
		return nil, err
	}
	prompt, err := Instruction(ctx, req, pr)
	if err != nil {
		return nil, session.StartError(err)
	}
	opts.Goal.PullRequest, opts.Goal.Pull = pr.Number, pr
	opts.Goal.Prompt = prompt
	opts.Goal.Issue = 0
	return session.Run(ctx, opts)
}

// Instruction builds the session's goal from the pull request.
func Instruction(ctx context.Context, req Request, pr *gh.PullRequest) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Fix pull request #%d: %s\n", pr.Number, gh.Sanitize(pr.Title))
	if body := strings.TrimSpace(gh.Sanitize(pr.Body)); body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	if in := strings.TrimSpace(req.Instruction); in != "" {
		fmt.Fprintf(&b, "\nThe maintainer asks: %s\n", in)
	}
	checks, err := req.Client.FailingChecks(ctx, req.Owner, req.Repo, pr.HeadSHA)
	if err != nil {
		return "", err
	}
	if len(checks) > 0 {
		b.WriteString("\nFailing checks:\n")
		for _, c := range checks {
			fmt.Fprintf(&b, "\n- %s (%s)", c.Name, c.Conclusion)
			if c.Title != "" {
				fmt.Fprintf(&b, ": %s", c.Title)
			}
			b.WriteString("\n")
			for _, part := range []string{c.Summary, c.Text} {
				if part = strings.TrimSpace(part); part != "" {
					fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(part, "\n", "\n  "))
				}
			}
			for _, a := range c.Annotations {
				fmt.Fprintf(&b, "  %s:%d: %s: %s\n", a.Path, a.StartLine, a.Level, strings.TrimSpace(a.Title+" "+a.Message))
			}
		}
	}
	threads, err := req.Client.UnresolvedReviewThreads(ctx, req.Owner, req.Repo, pr.Number)
	if err != nil {
		return "", err
	}
	if len(threads) > 0 {
		b.WriteString("\nUnresolved review comments:\n")
		for _, th := range threads {
			fmt.Fprintf(&b, "\n- %s:%d\n", th.Path, th.Line)
			for _, c := range th.Comments {
				fmt.Fprintf(&b, "  @%s: %s\n", c.Author, strings.ReplaceAll(strings.TrimSpace(c.Body), "\n", "\n  "))
			}
		}
	}
	if pr.Fork(req.Owner, req.Repo) {
		b.WriteString("\nMake the checks pass and address the review comments; the pull request comes from a fork, so your change is offered to its author as suggested changes in a review.")
	} else {
		b.WriteString("\nMake the checks pass and address the review comments; your commits land on the pull request's branch.")
	}
	return b.String(), nil
}
