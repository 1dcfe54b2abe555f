package session

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/review"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/testclass"
	"github.com/coreagent/core/session/tools"
)

// The findings of a review run: where its review went; on GitHub, its
// core/review check run's page (or "no check run: " and why) and what
// could not be done to its line comments.
const (
	FindingReviewed       FindingKind = "reviewed"
	FindingReviewCheckRun FindingKind = "review_check_run"
	FindingReviewComments FindingKind = "review_comments"
)

// errReviewLands refuses to land a review's session.
var errReviewLands = errors.New("this session is a review: it changes no code and lands nothing")

// startReview makes a review's start commit the merge base of its head and
// its base (review.Prepare): the model's git_diff shows the head's change,
// the contract's baselines are the base's, its result the head's tree.
func (s *run) startReview(ctx context.Context) error {
	head, base := s.rec.StartCommit, s.opts.Goal.Review.Base
	mb, err := review.Prepare(ctx, s.git.run, s.rec.Workspace, head, base)
	if err != nil {
		return &ConfigError{Option: "base", Err: err}
	}
	if gr, ok := s.origin.(githubRepo); ok {
		// The clone is partial and keeps no credentials.
		auth, err := gr.AuthEnv(ctx)
		if err == nil {
			err = review.FetchBase(ctx, gitRunner{env: append(slices.Clone(s.git.env), auth...), scrub: s.git.scrub}.run, s.rec.Workspace, mb, head)
		}
		if err != nil {
			return &InfraError{Err: err}
		}
	}
	s.rec.StartCommit, s.review = mb, &reviewRun{head: head, findings: []review.Finding{}}
	fmt.Fprintf(s.opts.Live.Progress, "reviewing %s against %s (%s)\n", clip.Hash(head), base, clip.Hash(mb))
	return nil
}

// offerFindings gives a review's model the finding tool: the harness runs
// each reproduction as the checker runs a check, confined, in scratch
// checkouts of the head and of the base made from the workspace's git
// objects; the judged findings are the review's.
func (s *run) offerFindings() {
	if s.review == nil {
		return
	}
	h := review.Harness{Confinement: s.checks.Confinement().TellingTo(s.events, "a reproduction", s.backend), Git: s.git.run, Clone: s.rec.Workspace,
		Base: s.rec.StartCommit, Head: s.review.head, Scrub: s.scrub}
	s.tools = s.tools.With(review.FindingTool(h.Reproduce, func(f []review.Finding) { s.review.findings = f }))
}

// reviewRun is what a review run holds besides any run's state: the head
// it reviews and what it found.
type reviewRun struct {
	head     string
	findings []review.Finding
}

// finishReview ends a review whose model called done (or whose budget ran
// out: then no check runs): the contract's checks on the base and on the
// head's tree, the review posted or printed, and the run's end.
func (s *run) finishReview(ctx context.Context, out outcome) outcome {
	tree, err := s.git.landGit().TreeOf(ctx, s.rec.Workspace, s.review.head)
	if err == nil {
		_, err = s.setTree(ctx, tree)
	}
	if err != nil {
		return failed(state.FailInfrastructure, err)
	}
	var tests *testclass.Classification
	if out.status != state.BudgetExhausted {
		fmt.Fprintf(s.opts.Live.Progress, "checking: the harness runs %d %s on the base and on the head\n", len(s.rec.Checks), plural(len(s.rec.Checks), "check", "checks"))
		if s.report.Contract = s.checks.Contract(ctx, s.rec.Checks, s.tree); ctx.Err() != nil {
			s.report.Contract = nil
			return outcome{status: state.Cancelled, err: fmt.Errorf("%w while the harness ran the checks", s.cancelReason(ctx))}
		}
		s.checkEvents(s.report.Contract)
		if tests = s.classifyTests(ctx); ctx.Err() != nil {
			return outcome{status: state.Cancelled, err: fmt.Errorf("%w while the harness classified the pull request's tests", s.cancelReason(ctx))}
		}
	}
	res := s.reviewResult(out)
	res.Tests = tests
	s.report.Review = &review.Report{Findings: res.Findings, Tests: res.Tests}
	where, err := s.postReview(ctx, res)
	if err != nil {
		return failed(state.FailInfrastructure, err)
	}
	s.report.Findings = append(s.report.Findings, Finding{Kind: FindingReviewed, Detail: where})
	if out.status == state.BudgetExhausted {
		return out
	}
	return outcome{status: state.Idle, end: true}
}

// classifyTests classifies the pull request's own tests, confined as the
// checks are (review.ClassifyTests): a pull request's files are GitHub's.
func (s *run) classifyTests(ctx context.Context) *testclass.Classification {
	t := review.Tests{Confinement: s.checks.Confinement().TellingTo(s.events, "classifying the pull request's tests", s.backend), Git: s.git.run, Clone: s.rec.Workspace,
		Base: s.rec.StartCommit, Head: s.review.head, Progress: s.opts.Live.Progress}
	if gr, ok := s.origin.(githubRepo); ok && s.rec.PullRequest != 0 {
		owner, name, _ := gh.ParseRepo(gr.Name())
		t.Files = func(ctx context.Context) ([]gh.PullFile, error) {
			return s.opts.Services.GitHub.PullFiles(ctx, owner, name, s.rec.PullRequest)
		}
	}
	c := review.ClassifyTests(ctx, t)
	c.Error = s.scrub(c.Error)
	return c
}

// reviewResult is what the review says: the model's summary and findings,
// the harness's checks, and the run's spending.
func (s *run) reviewResult(out outcome) review.Result {
	return review.Result{SessionID: s.rec.ID, Base: s.rec.StartCommit, Head: s.review.head,
		Summary: s.rec.Summary, Contract: s.report.Contract, Turns: s.rec.Turns, Tokens: s.rec.Usage.TotalTokens,
		Findings: s.review.findings, CostUSD: s.rec.CostUSD, Exhausted: out.status == state.BudgetExhausted}
}

// postReview posts res on the pull request (one review per head, its
// line comments, and the core/review check run), or prints it for a
// local review, and says where it went.
func (s *run) postReview(ctx context.Context, res review.Result) (string, error) {
	gr, ok := s.origin.(githubRepo)
	if !ok || s.rec.PullRequest == 0 {
		fmt.Fprintln(s.opts.Services.Output, s.scrub(review.Body(res)))
		return "printed", nil
	}
	owner, name, _ := gh.ParseRepo(gr.Name())
	out, err := review.Publish(ctx, s.opts.Services.GitHub, review.Target{Owner: owner, Name: name, Number: s.rec.PullRequest}, res, s.scrub)
	if err != nil {
		return "", err
	}
	s.rec.PRURL = out.URL
	for _, n := range out.Notes {
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingReviewComments, Detail: s.scrub(n)})
	}
	s.report.Findings = append(s.report.Findings, Finding{Kind: FindingReviewCheckRun, Detail: out.CheckRun})
	return review.Where(out, res.Head), nil
}

// kindOf is the kind a run of goal records: review.Kind or "".
func kindOf(g Goal) string {
	if g.Review != nil {
		return review.Kind
	}
	return ""
}

// toolsFor is the tool set a session's model is offered: a review's has
// no write tool.
func toolsFor(rec *Record) *tools.Set {
	if rec.Kind == review.Kind {
		return review.Tools(tools.Default())
	}
	return tools.Default()
}
