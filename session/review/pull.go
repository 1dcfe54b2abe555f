package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
)

// Getter fetches a pull request; *gh.Client is one.
type Getter interface {
	PullRequest(ctx context.Context, owner, name string, number int) (*gh.PullRequest, error)
}

// ClosedError refuses a review of a closed or merged pull request.
type ClosedError struct{ Pull *gh.PullRequest }

func (e *ClosedError) Error() string {
	how, what := "closed", "reopen it, or review the branch locally with core review --base"
	if e.Pull.Merged {
		how, what = "merged", "a merged one cannot be reopened: review a branch locally with core review --base"
	}
	return fmt.Sprintf("pull request #%d is %s: core reviews only open pull requests (%s)", e.Pull.Number, how, what)
}

// Pull fetches pull request number of owner/name for a review, refusing
// one that is closed or merged (ClosedError).
func Pull(ctx context.Context, c Getter, owner, name string, number int) (*gh.PullRequest, error) {
	p, err := c.PullRequest(ctx, owner, name, number)
	if err != nil {
		return nil, err
	}
	if p.State != "open" {
		return nil, &ClosedError{Pull: p}
	}
	return p, nil
}

// Instruction is a review's instruction to the model: what to review, and
// what the person asked (/core review ARGS), if anything.
func Instruction(what, base, asked string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review %s against %s. git_diff shows what it changes; read_file, list_dir and search show the code around it. ", what, base)
	b.WriteString("This is a review: change no file. Look for bugs the change introduces, tests it lacks, and what it breaks; ")
	b.WriteString("report each finding with the finding tool, with a reproduction that fails on the head and passes on the base where you can, then sum the review up in done's summary.")
	if a := strings.TrimSpace(asked); a != "" {
		fmt.Fprintf(&b, "\n\nThe person who asked for the review said: %s", a)
	}
	return b.String()
}
