package session

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/review"
	"github.com/coreagent/core/session/state"
)

// Step is one turn of a run, for the report's table of turns.
type Step struct {
	Turn     int           `json:"turn"`
	Tool     string        `json:"tool"`
	Target   string        `json:"target,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Tokens   int           `json:"tokens"`
	// Malformed is set for a reply that held no valid action.
	Malformed bool `json:"malformed,omitempty"`
}

// Report is what a run did: report.json, written when a run ends, whatever
// the ending. Its fields are grouped by concern in embedded structs, each a
// run of the fields in their old order, so report.json stays one flat
// object with its keys in the order they always had.
type Report struct {
	ID   string `json:"id"`
	Repo string `json:"repo"`
	ReportOutcome
	ReportLanding
	ReportSpend
	ReportVerification
	ReportRun

	// Warmup is how the build's background warm-up ended; nil when none
	// ran.
	Warmup *WarmupReport `json:"warmup,omitempty"`

	ReportGoal
	// DiffStat is how much the landed commit changed since the start
	// commit; nil when nothing landed.
	DiffStat *DiffStat `json:"diff_stat,omitempty"`
	// Files are the files the run kept beside its record, as paths in the
	// session's directory: the browser's screenshots and console log
	// (browser/screenshot-1.png, browser/console.log).
	Files []string `json:"files,omitempty"`
}

// DiffStat is how much a change changed (land.DiffStat).
type DiffStat = land.DiffStat

// ReportOutcome is how the run ended and what the model said it did.
type ReportOutcome struct {
	Status      state.Status      `json:"status"`
	FailureKind state.FailureKind `json:"failure_kind,omitempty"`
	Error       string            `json:"error,omitempty"`
	Summary     string            `json:"summary,omitempty"`
}

// ReportLanding is where the run started and where its work landed.
type ReportLanding struct {
	Base        string `json:"base"`
	StartCommit string `json:"start_commit"`
	Branch      string `json:"branch"`
	Commit      string `json:"commit,omitempty"`
	PRURL       string `json:"pr_url,omitempty"`
	PullRequest int    `json:"pull_request,omitempty"`
	Landed      bool   `json:"landed"`
	DryRun      bool   `json:"dry_run,omitempty"`
	// CheckRun is the page of the core/contract check run on the landed
	// commit, or why there is none ("no check run: " and GitHub's words,
	// for a token that may not make one).
	CheckRun string `json:"check_run,omitempty"`
	// Signature is what GitHub concluded of the landed commit's signature
	// ("verified (signed by GitHub for the App)", "unverified: <reason>");
	// empty when nothing landed on GitHub.
	Signature string `json:"signature,omitempty"`
	// RunURL is the page of the run where it ran (the Action's job, the
	// console's page of a serve run): Landing.RunURL; empty when none.
	RunURL string `json:"run_url,omitempty"`
}

// ReportSpend is the run's turns and what they spent.
type ReportSpend struct {
	Turns int `json:"turns"`
	// TotalTurns counts the turns of every run of the session, resumes
	// included; Turns only this run's.
	TotalTurns int   `json:"total_turns"`
	Usage      Usage `json:"usage"`
	// CostUSD is what this run's tokens cost at Price; nil when no price
	// is known ("no price set"), never 0 for unknown.
	CostUSD *float64      `json:"cost_usd,omitempty"`
	Price   *budget.Price `json:"price,omitempty"`
	// Budget is the session's caps and spend; nil when none is set.
	Budget *budget.BudgetReport `json:"budget,omitempty"`
	// Spend is what each turn of this run cost; SpendByTool the same
	// totalled by the tool the turns called, most expensive first.
	Spend       []budget.TurnSpend  `json:"spend,omitempty"`
	SpendByTool []budget.ToolSpend  `json:"spend_by_tool,omitempty"`
	Context     budget.ContextStats `json:"context"`
}

// ReportVerification is how the result was checked: the tier, the
// sandbox, the languages, the contract and the trees it held.
type ReportVerification struct {
	Verify    string `json:"verify"`
	Sandboxed bool   `json:"sandboxed"`
	// Languages are the ecosystems the run found and what the tier ran
	// unattended there; nil when it could not look.
	Languages *Languages `json:"languages,omitempty"`
	// Contract is the harness's own verdict on the result; nil when the
	// session never reached done with a change.
	Contract *contract.Contract `json:"contract,omitempty"`
	// Tree is the git tree object of the workspace frozen at done: what
	// the result checks ran on, what the landing guard read, and what
	// lands; StartTree is the start commit's. LandedTree is the tree of
	// the landed commit: Tree, except where a local landing left out the
	// uncommitted work the session started from (a finding says so).
	Tree       string `json:"tree,omitempty"`
	StartTree  string `json:"start_tree,omitempty"`
	LandedTree string `json:"landed_tree,omitempty"`
	// Unverified is set when no contract held the result to anything.
	Unverified bool `json:"unverified"`
	// Receipt names the contract's receipt (receipt.json); nil when the
	// run had no contract.
	Receipt *ReportReceipt `json:"receipt,omitempty"`
}

// ReportRun is what the run found, its turns step by step, the
// instructions it was given, and when it started and ended.
type ReportRun struct {
	Findings []Finding `json:"findings,omitempty"`
	Steps    []Step    `json:"steps"`
	// Instructions are the repository instruction files the model was
	// given, e.g. ["AGENTS.md", "pkg/AGENTS.md"].
	Instructions []string  `json:"instructions,omitempty"`
	StartedAt    time.Time `json:"started_at"`
	EndedAt      time.Time `json:"ended_at"`
}

// ReportGoal is what the session was asked to do, in a line: the prompt,
// or else the issue's title. Issue is that issue.
type ReportGoal struct {
	Goal  string `json:"goal,omitempty"`
	Issue int    `json:"issue,omitempty"`
	// Kind is the run's kind: "review" for a review; empty for a run that
	// changes code.
	Kind string `json:"kind,omitempty"`
	// Review is, for a review, its findings and the classification of
	// the pull request's tests; nil for any other run.
	Review *review.Report `json:"review,omitempty"`
}

// FindingKind names something a run found worth telling.
type FindingKind string

// The finding kinds.
const (
	// FindingNoChange: the model called done without changing the tree.
	FindingNoChange FindingKind = "no_change"
	// FindingLeftOut: a local landing left out the uncommitted work the
	// session started from, so the landed tree is not the checked one
	// (Detail names both).
	FindingLeftOut FindingKind = "uncommitted_work_left_out"
)

// Finding is one thing a run found, with the words that explain it.
type Finding struct {
	Kind   FindingKind `json:"kind"`
	Detail string      `json:"detail,omitempty"`
}

// Finding returns the first finding of kind k, if any.
func (r *Report) Finding(k FindingKind) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Kind == k {
			return f, true
		}
	}
	return Finding{}, false
}

// WriteSummary prints the end-of-run summary for people: status, turns,
// tokens, branch, and the contract: each check with both results, then
// its verdict or the UNVERIFIED warning.
func (r *Report) WriteSummary(w io.Writer) {
	status := string(r.Status)
	if r.FailureKind != "" {
		status += " (" + string(r.FailureKind) + ")"
	}
	fmt.Fprintf(w, "session %s: %s\n", r.ID, status)
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	if r.Summary != "" {
		fmt.Fprintf(w, "summary: %s\n", clip.Line(r.Summary, 300))
	}
	if warn := r.OwnRunWarning(); warn != "" {
		fmt.Fprintf(w, "  %s\n", warn)
	}
	if r.Review != nil {
		r.Review.WriteText(w)
	}
	turns := fmt.Sprint(r.Turns)
	if r.TotalTurns > r.Turns {
		turns = fmt.Sprintf("%d (%d in all)", r.Turns, r.TotalTurns)
	}
	fmt.Fprintf(w, "turns: %s, tokens: %d (prompt %d, completion %d), time: %s\n",
		turns, r.Usage.TotalTokens, r.Usage.PromptTokens, r.Usage.CompletionTokens,
		r.EndedAt.Sub(r.StartedAt).Round(time.Millisecond))
	cost := "cost: " + budget.CostText(r.CostUSD)
	if r.Price != nil {
		cost += " at " + r.Price.String()
	}
	fmt.Fprintln(w, cost)
	if r.Budget != nil {
		fmt.Fprintf(w, "budget: %s\n", r.Budget.Line())
	}
	if len(r.Instructions) > 0 {
		fmt.Fprintf(w, "instructions: %s\n", strings.Join(r.Instructions, ", "))
	}
	if len(r.Files) > 0 {
		fmt.Fprintf(w, "files (in the session's directory): %s\n", strings.Join(r.Files, ", "))
	}
	if c := r.Context; c.Requests > 0 {
		fmt.Fprintf(w, "context: %d requests, %d tokens sent (estimated), largest %d of the %d budget, prefix reuse median %.2f\n",
			c.Requests, c.SentTokensEstimated, c.LargestRequestEstimated, c.Budget, c.PrefixReuseMedian)
	}
	r.WriteLanding(w)
}

// WriteLanding prints where the work landed (the pull request, the branch
// or why nothing did), the core/contract check run, and the contract: each
// check with both results, then its verdict or the UNVERIFIED warning.
// The summary ends with it, and an idle run prints it before it waits.
func (r *Report) WriteLanding(w io.Writer) {
	if f, ok := r.Finding(FindingNoChange); ok {
		fmt.Fprintf(w, "no change: the model called done without changing anything, so nothing landed and nothing was checked (its reason: %s)\n", clip.Line(orNone(f.Detail), 300))
		return
	}
	switch {
	case r.PRURL != "":
		fmt.Fprintf(w, "pull request: %s\n", r.PRURL)
	case r.Landed:
		fmt.Fprintf(w, "branch: %s (commit %s)\n", r.Branch, clip.Hash(r.Commit))
	case r.DryRun:
		fmt.Fprintf(w, "branch: none (dry run: nothing landed)\n")
	default:
		fmt.Fprintf(w, "branch: %s (not landed)\n", r.Branch)
	}
	if r.Signature != "" {
		fmt.Fprintf(w, "commit %s signature: %s\n", clip.Hash(r.Commit), r.Signature)
	}
	if f, ok := r.Finding(FindingLeftOut); ok {
		fmt.Fprintf(w, "landed without your uncommitted work: %s\n", f.Detail)
	}
	switch {
	case strings.HasPrefix(r.CheckRun, "no check run") || strings.HasPrefix(r.CheckRun, "check run not"):
		fmt.Fprintf(w, "%s\n", r.CheckRun)
	case r.CheckRun != "":
		fmt.Fprintf(w, "check run %s: %s\n", land.CheckRunName, r.CheckRun)
	}
	if r.Kind != review.Kind {
		r.Contract.WriteText(w)
		return
	}
	var contract strings.Builder
	r.Contract.WriteText(&contract)
	fmt.Fprint(w, review.Words(contract.String()))
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none given"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FindingOwnRunFailed: the model's done summary claims that the tests (or
// the build, the checks) pass, but its own last run of such a command
// failed; Detail says which and how.
const FindingOwnRunFailed FindingKind = "own_run_failed"

// noteOwnRun records, at done, whether the model's summary claims a
// success its own last run denies, replacing what an earlier done of the
// run recorded.
func (s *run) noteOwnRun(summary string) {
	s.report.Findings = slices.DeleteFunc(s.report.Findings, func(f Finding) bool { return f.Kind == FindingOwnRunFailed })
	if d := contract.OwnRunContradicts(summary, s.ownRuns, s.rec.Checks); d != "" {
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingOwnRunFailed, Detail: s.scrub(d)})
		fmt.Fprintf(s.opts.Live.Progress, "warning: %s\n", s.scrub(d))
	}
}

// OwnRunWarning is the warning to print beside the model's summary when
// its own last run denies what it claims: "" when none does.
func (r *Report) OwnRunWarning() string {
	if f, ok := r.Finding(FindingOwnRunFailed); ok {
		return "but " + f.Detail
	}
	return ""
}

// OwnRunMarkdown is the same warning as a Markdown alert, for a pull
// request's body, a comment or a step summary, beside the model's
// summary: "" when there is none.
func (r *Report) OwnRunMarkdown() string {
	warn := r.OwnRunWarning()
	if warn == "" {
		return ""
	}
	return "> [!WARNING]\n> " + strings.ToUpper(warn[:1]) + warn[1:] + ".\n\n"
}
