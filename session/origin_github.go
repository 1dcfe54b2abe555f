package session

import (
	"context"
	"errors"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/land"
)

// FindingReview: the work went to a fork's pull request as a review with
// suggested changes (the report's PRURL is the review); Detail says what
// it holds.
const FindingReview FindingKind = "review"

// FindingNoReceipt: the receipt of the landed commit could not be made;
// the work landed without it, and Detail says why.
const FindingNoReceipt FindingKind = "no_receipt"

// githubRepo is the origin of a session on GitHub: a land.Repo, handed
// what it needs of the session (the goal, the git runner, the run's work
// as a land.Work), so session/land never reads a run.
type githubRepo struct {
	*land.Repo
}

func openGitHubRepo(ctx context.Context, g gitRunner, client *gh.Client, full string) (githubRepo, error) {
	r, err := land.Open(ctx, g.landGit(), client, full)
	if err != nil {
		return githubRepo{}, err
	}
	return githubRepo{Repo: r}, nil
}

func (r githubRepo) name() string { return r.Name() }

func (r githubRepo) target(ctx context.Context, opts Options, id string) (land.Target, error) {
	t, err := r.Target(ctx, landGoal(opts), id)
	return t, fromLand(err)
}

func (r githubRepo) issue(ctx context.Context, number int, before time.Time) (string, error) {
	return r.Issue(ctx, number, before)
}

func (r githubRepo) clone(ctx context.Context, dest string, t land.Target) error {
	return fromLand(r.Clone(ctx, dest, t))
}

// land hands the run's work to land.Repo.Land and records where it went.
func (r githubRepo) land(ctx context.Context, s *run) error {
	rec := s.rec
	w := s.landWork()
	w.Failures = land.Failures(ctx, w.Git, rec.Workspace, s.report.StartTree, s.tree, s.report.Contract)
	err := r.Land(ctx, w)
	rec.PRURL, rec.PullRequest = w.PRURL, w.PullRequest
	s.report.CheckRun = w.CheckRun
	if w.ReceiptNote != "" {
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingNoReceipt, Detail: w.ReceiptNote})
	}
	// The commit GitHub made through the API (signed for an App) is the
	// one that landed.
	rec.Commit, s.report.Signature = w.Commit, w.Signature
	if w.Review != "" {
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingReview, Detail: w.Review})
	}
	return err
}

// landWork is what landing needs of the run.
func (s *run) landWork() *land.Work {
	rec := s.rec
	line, spent, topUp := "", "", ""
	if s.report.Contract.Broken() {
		line = s.report.Contract.Line()
	}
	if s.spend.exhausted {
		r := s.budgetReport()
		spent, topUp = r.Line(), budget.ResumeCommand(rec.ID, r.TopUp())
	}
	passed, failing := s.report.Contract.Counts()
	checked := passed + failing
	w := &land.Work{
		Record: land.Record{
			ID: rec.ID, Workspace: rec.Workspace, Base: rec.Base, Branch: rec.Branch,
			StartCommit: rec.StartCommit, Commit: rec.Commit, PullRequest: rec.PullRequest, PRURL: rec.PRURL,
			LandOnto: rec.LandOnto, Uncommitted: rec.Uncommitted, Signed: s.opts.Landing.SigningKey.Set(),
		},
		Verdict: land.Verdict{
			Ready: s.opts.Landing.Ready, Held: s.report.Contract.Held(), Broken: s.report.Contract.Broken(), Exhausted: s.spend.exhausted,
			ContractLine: line, Tree: s.tree,
			Contract: string(s.report.Contract.VerdictOrNone()), Checks: checked,
		},
		Texts: land.Texts{
			// Beside the model's summary, above, when its own last run denies it.
			Summary: rec.Summary, Prompt: rec.Prompt, Verification: s.report.OwnRunMarkdown() + s.report.Contract.Markdown(), Budget: land.BudgetTexts{Line: spent, TopUp: topUp},
			Model: rec.Model, Verify: string(rec.Verify), Issue: rec.Issue, Turns: rec.Turns,
			Tokens: rec.Usage.TotalTokens, PromptTokens: rec.Usage.PromptTokens, CompletionTokens: rec.Usage.CompletionTokens, CostUSD: rec.CostUSD,
		},
		Git: s.git.landGit(), Scrub: s.scrub, CheckCommitTree: s.checkCommitTree,
		Proof: land.Proof{ContractTable: s.report.Contract.Markdown(), RunURL: s.opts.Landing.RunURL},
	}
	if s.report.Contract != nil {
		w.Receipt = s.landedReceipt
	}
	return w
}

// LandablePull refuses a pull request core cannot land on: a closed one
// (land.LandablePull, its error a ConfigError).
func LandablePull(p *gh.PullRequest, owner, repo string) error {
	return fromLand(land.LandablePull(p, owner, repo))
}

// fromLand makes a land.OptionError the ConfigError it is.
func fromLand(err error) error {
	var oe *land.OptionError
	if errors.As(err, &oe) && err == error(oe) {
		return &ConfigError{Option: oe.Option, Err: oe.Err}
	}
	return err
}
