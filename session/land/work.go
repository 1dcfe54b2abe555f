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
// branch, an issue or a pull request (the session's Options.Goal).
type Goal struct {
	Base, Branch string
	Issue        int
	PullRequest  int
	// Pull is the pull request PullRequest names, when the caller already
	// fetched and checked it (LandablePull): it is not fetched again.
	Pull *gh.PullRequest
	// Clean leaves a local repository's uncommitted work out of the start.
	Clean bool
}

// Work is what landing needs of the session whose work lands: its
// record's fields, what its contract and budget concluded, the texts it
// posts, and how its commit is checked. Land records where the work went
// in PRURL and PullRequest, and, for a review on a fork's pull request,
// what the review holds in Review; a local repository's Land records the
// commit it made in Commit and LandOnto, and what it left out in LeftOut.
type Work struct {
	Record
	Verdict
	Texts
	// Git runs git in the workspace as the run does (its secrets scrubbed
	// from what git is given and from its failures).
	Git Git
	// LeftOut says the landed commit leaves out the uncommitted work the
	// session started from.
	LeftOut string
	// Scrub removes the run's secrets from what is posted.
	Scrub func(string) string
	// CheckCommitTree refuses a commit whose tree is not the checked one.
	CheckCommitTree func(context.Context) error
	// Review says what the review posted on a fork's pull request holds.
	Review string
	Proof
}

// Proof is what lets others check the work that landed on GitHub: the
// receipt of its contract, the core/contract check run on its commit and
// GitHub's verification of its signature. Receipt, ContractTable and
// RunURL are given; Land fills in the rest.
type Proof struct {
	// Receipt makes the receipt of the session's contract (its canonical
	// JSON and its hash, session/receipt) for the commit that landed; nil
	// when the session has none. Land calls it once the commit is on
	// GitHub, and keeps what it made in ReceiptJSON and ReceiptHash for
	// the pull request's body and the check run.
	Receipt     func(ctx context.Context, commit string) (data []byte, hash string, err error)
	ReceiptJSON []byte
	ReceiptHash string
	// ReceiptNote says why there is no receipt when making it failed.
	ReceiptNote string
	// CheckRun is, once Land pushed, the page of the core/contract check
	// run on the landed commit, or why there is none ("no check run: "
	// and GitHub's words).
	CheckRun string
	// Signature is what GitHub concluded of the landed commit's signature
	// ("verified (signed by GitHub for the App)", "unverified: <reason>");
	// Land sets it once the commit is on GitHub.
	Signature string
	// ContractTable is the contract's Markdown table alone (the check
	// run's summary); RunURL the page of the run (the Action's run, the
	// console's), where the check run links.
	ContractTable, RunURL string
}

// Record is the session's record as landing reads and writes it.
type Record struct {
	ID, Workspace       string
	Base, Branch        string
	StartCommit, Commit string
	PullRequest         int
	PRURL               string
	// LandOnto and Uncommitted: see Target.Onto.
	LandOnto    string
	Uncommitted int
	// Signed says Commit is signed with the user's key (SigningKey): it
	// lands with git push, as it is.
	Signed bool
}

// Verdict is what the run's contract and budget concluded.
type Verdict struct {
	// Ready marks a draft ready for review when the contract Held and the
	// budget is not Exhausted (--ready).
	Ready, Held, Broken, Exhausted bool
	// ContractLine is the contract's verdict in a line.
	ContractLine string
	// Contract is the contract's verdict (contract.ContractVerdict; ""
	// when no contract ran), Checks how many checks it held, and Failures
	// the checks that failed on the result.
	Contract string
	Checks   int
	Failures []Failure
	// Tree is the tree the checks ran on.
	Tree string
}

// Texts is what the pull request, its comment and a review say: the
// model's summary (or the prompt, or the issue, for a title), the
// contract's table with the model's own runs (Verification), what a
// budget that stopped the run says (Budget), and the session's model,
// tier, turns, tokens and cost.
type Texts struct {
	Summary, Prompt, Verification          string
	Budget                                 BudgetTexts
	Model, Verify                          string
	Issue, Turns                           int
	Tokens, PromptTokens, CompletionTokens int
	CostUSD                                *float64
}

// BudgetTexts is what a budget that stopped the run says: what it
// allowed (Line) and the command that tops it up and continues (TopUp).
type BudgetTexts struct {
	Line, TopUp string
}

// Target is where a session starts and lands.
type Target struct {
	Base   string // the branch or commit asked for, by name
	SHA    string // the commit the session starts from
	Branch string // the branch the work lands on
	Pull   int    // an open pull request the work lands on; 0 opens a new one
	// Fetch, for a pull request from a fork, is the ref of the base
	// repository its head is fetched by (refs/pull/N/head): core clones
	// only the base repository, never the fork.
	Fetch string
	// Onto, for a session that starts from the user's uncommitted work (a
	// snapshot commit in SHA), is the commit that work sits on: landing
	// rebuilds the session's changes onto it. Uncommitted counts the paths.
	Onto        string
	Uncommitted int
	// Keep is the ref the snapshot is kept under, made with the clone.
	Keep string
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
