package land

import (
	"context"
	"fmt"

	"github.com/coreagent/core/gh"
)

// BudgetTitlePrefix starts the title of a pull request whose run its
// budget stopped.
const BudgetTitlePrefix = "[budget exhausted] "

// Goal is what a session asks of the repository it starts on: a base, a
// branch, an issue or a pull request (the session's Options.Goal), and
// how a branch name is checked.
type Goal struct {
	Base, Branch string
	Issue        int
	PullRequest  int
	// Pull is the pull request PullRequest names, when the caller already
	// fetched and checked it (LandablePull): it is not fetched again.
	Pull *gh.PullRequest
	// ValidBranch refuses a branch name git would refuse; its error is
	// returned as it is.
	ValidBranch func(ctx context.Context, branch string) error
}

// Work is what landing needs of the session whose work lands: its
// record's fields, what its contract and budget concluded, the texts it
// posts, and how its commit is checked. Land records where the work went
// in PRURL and PullRequest, and, for a review on a fork's pull request,
// what the review holds in Review.
type Work struct {
	Record
	Verdict
	Texts
	// Scrub removes the run's secrets from what is posted.
	Scrub func(string) string
	// CheckCommitTree refuses a commit whose tree is not the checked one.
	CheckCommitTree func(context.Context) error
	// Review says what the review posted on a fork's pull request holds.
	Review string
}

// Record is the session's record as landing reads and writes it.
type Record struct {
	ID, Workspace       string
	Base, Branch        string
	StartCommit, Commit string
	PullRequest         int
	PRURL               string
}

// Verdict is what the run's contract and budget concluded.
type Verdict struct {
	// Ready marks a draft ready for review when the contract Held and the
	// budget is not Exhausted (--ready).
	Ready, Held, Broken, Exhausted bool
	// ContractLine is the contract's verdict in a line.
	ContractLine string
}

// Texts is what the pull request, its comment and a review say: the
// model's summary (or the prompt, or the issue, for a title), the
// contract's table with the model's own runs (Verification), what the
// budget allowed when it stopped the run (BudgetLine), and the session's
// model, tier, turns, tokens and cost.
type Texts struct {
	Summary, Prompt, Verification, BudgetLine string
	Model, Verify                             string
	Issue, Turns                              int
	Tokens, PromptTokens, CompletionTokens    int
	CostUSD                                   *float64
}

// Target is where a session on GitHub starts and lands.
type Target struct {
	Base   string // the branch or commit asked for, by name
	SHA    string // the commit the session starts from
	Branch string // the branch the work lands on
	Pull   int    // an open pull request the work lands on; 0 opens a new one
	// Fetch, for a pull request from a fork, is the ref of the base
	// repository its head is fetched by (refs/pull/N/head).
	Fetch string
}

// OptionError is a user's mistake about one option (none for Option ""):
// the session makes it its ConfigError.
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string {
	if e.Option == "" {
		return e.Err.Error()
	}
	return e.Option + ": " + e.Err.Error()
}

func (e *OptionError) Unwrap() error { return e.Err }

func optionError(option, format string, args ...any) error {
	return &OptionError{Option: option, Err: fmt.Errorf(format, args...)}
}
