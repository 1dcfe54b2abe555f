package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/status"
)

// FindingReview: the work went to a fork's pull request as a review with
// suggested changes (the report's PRURL is the review); Detail says what
// it holds.
const FindingReview FindingKind = "review"

// githubRepo is the origin of a session on GitHub: a land.Repo, handed
// what it needs of the session (the goal, the git runner, the run's work
// as a land.Work), so session/land never reads a run.
type githubRepo struct {
	*land.Repo
	git gitRunner // without authentication: see clone
}

func openGitHubRepo(ctx context.Context, g gitRunner, client *gh.Client, full string) (githubRepo, error) {
	r, err := land.Open(ctx, func(ctx context.Context, env []string, dir, stdin string, args ...string) (string, error) {
		return g.with(env...).raw(ctx, dir, stdin, args...)
	}, client, full)
	if err != nil {
		return githubRepo{}, err
	}
	return githubRepo{Repo: r, git: g}, nil
}

func (r githubRepo) name() string { return r.Name() }

func (r githubRepo) target(ctx context.Context, opts Options, id string) (target, error) {
	t, err := r.Target(ctx, land.Goal{
		Base: opts.Goal.Base, Branch: opts.Goal.Branch, Issue: opts.Goal.Issue, PullRequest: opts.Goal.PullRequest, Pull: opts.Goal.Pull,
		ValidBranch: func(ctx context.Context, branch string) error { return checkBranchName(ctx, r.git, branch) },
	}, id)
	if err != nil {
		return target{}, fromLand(err)
	}
	return target{base: t.Base, sha: t.SHA, branch: t.Branch, pull: t.Pull, fetch: t.Fetch}, nil
}

func (r githubRepo) issue(ctx context.Context, number int, before time.Time) (string, error) {
	return r.Issue(ctx, number, before)
}

// clone makes a partial clone (blobs fetched as needed) of the repository
// from the clone URL the API reported.
func (r githubRepo) clone(ctx context.Context, dest string, t target) error {
	auth, err := r.AuthEnv(ctx)
	if err != nil {
		return err
	}
	return cloneAt(ctx, r.git.with(auth...), r.CloneURL(), r.name(), dest, t, "--filter=blob:none")
}

// land hands the run's work to land.Repo.Land and records where it went.
func (r githubRepo) land(ctx context.Context, s *run) error {
	rec := s.rec
	line := ""
	if s.report.Contract.Broken() {
		line = s.report.Contract.Line()
	}
	w := &land.Work{
		Record: land.Record{
			ID: rec.ID, Workspace: rec.Workspace, Base: rec.Base, Branch: rec.Branch,
			StartCommit: rec.StartCommit, Commit: rec.Commit, PullRequest: rec.PullRequest, PRURL: rec.PRURL,
		},
		Verdict: land.Verdict{
			Ready: s.opts.Landing.Ready, Held: s.report.Contract.Held(), Broken: s.report.Contract.Broken(), Exhausted: s.spend.exhausted,
			ContractLine: line,
		},
		Texts: land.Texts{
			Title: s.pullTitle, Body: s.pullBody, Comment: s.pullComment,
			Summary: rec.Summary, Verification: s.report.OwnRunMarkdown() + s.report.Contract.Markdown(),
			Turns: rec.Turns, Tokens: rec.Usage.TotalTokens,
		},
		Scrub: s.scrub, CheckCommitTree: s.checkCommitTree,
	}
	err := r.Land(ctx, w)
	rec.PRURL, rec.PullRequest = w.PRURL, w.PullRequest
	if w.Review != "" {
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingReview, Detail: w.Review})
	}
	return err
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

// pullTitle is the title of the session's pull request, marked when the
// budget stopped the run or the contract broke.
func (s *run) pullTitle() string {
	title := pullTitle(s.rec)
	if s.spend.exhausted {
		return BudgetTitlePrefix + title
	}
	if s.report.Contract.Broken() {
		return contract.FailingTitlePrefix + title
	}
	return title
}

// pullTitle is the first line of the done summary, or the prompt.
func pullTitle(rec *Record) string {
	first, _, _ := strings.Cut(strings.TrimSpace(rec.Summary), "\n")
	if first == "" {
		first = strings.TrimSpace(rec.Prompt)
	}
	if first == "" && rec.Issue != 0 {
		first = fmt.Sprintf("Fix #%d", rec.Issue)
	}
	return oneLine(first, 100)
}

// pullBody is the body of the draft pull request a session opens: what was
// done, the contract's table and verdict (or the UNVERIFIED warning), the
// turns and tokens, the session, and the markers.
func (s *run) pullBody() string {
	rec := s.rec
	var b strings.Builder
	s.writeSpent(&b)
	if sum := strings.TrimSpace(rec.Summary); sum != "" {
		b.WriteString(sum + "\n\n")
	}
	s.writeVerification(&b)
	fmt.Fprintf(&b, "\n### Session\n\n- session: `%s`\n- turns: %d, tokens: %d (prompt %d, completion %d)\n- model: `%s`, verify tier: `%s`\n",
		rec.ID, rec.Turns, rec.Usage.TotalTokens, rec.Usage.PromptTokens, rec.Usage.CompletionTokens, rec.Model, rec.Verify)
	fmt.Fprintf(&b, "- cost: %s\n", budget.CostText(rec.CostUSD))
	if rec.Issue != 0 {
		fmt.Fprintf(&b, "\nCloses #%d\n", rec.Issue)
	}
	b.WriteString("\n" + status.SessionMarker(rec.ID) + "\n")
	if rec.Issue != 0 {
		b.WriteString(status.IssueMarker(rec.Issue) + "\n")
	}
	return b.String()
}

// pullComment reports a session that landed on an open pull request.
func (s *run) pullComment() string {
	rec := s.rec
	var b strings.Builder
	fmt.Fprintf(&b, "core pushed %s onto this pull request (session `%s`).\n\n", short(rec.Commit), rec.ID)
	s.writeSpent(&b)
	if s.report.Contract.Broken() {
		b.WriteString("**" + strings.TrimSpace(contract.FailingTitlePrefix) + "** " + s.report.Contract.Line() + ".\n\n")
	}
	if sum := strings.TrimSpace(rec.Summary); sum != "" {
		b.WriteString(sum + "\n\n")
	}
	s.writeVerification(&b)
	fmt.Fprintf(&b, "\nTurns: %d, tokens: %d.\n\n%s\n", rec.Turns, rec.Usage.TotalTokens, status.SessionMarker(rec.ID))
	return b.String()
}

// writeSpent says, when the budget stopped the run, that the work is
// unfinished and how much was spent of what.
func (s *run) writeSpent(b *strings.Builder) {
	if s.spend.exhausted {
		fmt.Fprintf(b, "**%s** The run stopped before its next request: %s. The work is unfinished and unchecked; `core session resume %s --budget-usd N` (or `--budget-tokens N`) continues it.\n\n",
			strings.TrimSpace(BudgetTitlePrefix), s.budgetReport().Line(), s.rec.ID)
	}
}

func (s *run) writeVerification(b *strings.Builder) {
	// Beside the model's summary, above, when its own last run denies it.
	b.WriteString(s.report.OwnRunMarkdown())
	b.WriteString(s.report.Contract.Markdown())
}
