package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/review"
	"github.com/coreagent/core/session/state"
)

// Landing is how a run's work lands.
type Landing struct {
	// Ready marks the pull request ready for review when the contract
	// held; otherwise it stays a draft.
	Ready  bool
	DryRun bool
	// AllowWorkflowChanges lets the session write and land files under
	// .github/workflows: a workflow runs with the repository's secrets on
	// the next push, so by default the tools refuse to write one and
	// landing refuses work that changes one. Recorded; resume keeps it.
	AllowWorkflowChanges bool
	// RunURL is the page of the run (the Action's run page, the
	// console's): the core/contract check run links to it.
	RunURL string
	// SigningKey, when set, signs the commit core lands (--signing-key),
	// which is then pushed with git rather than made through the Git Data
	// API. Never recorded: a resume is given it again.
	SigningKey land.SigningKey
}

// finish lands the work of a run whose model called done, step by step:
// a run that changed nothing lands nothing; the harness holds the result
// to its contract; the work is committed and landed (as a draft marked
// [checks failing] when the contract broke). It returns idle when the run
// may wait for its next message, or the run's end: a broken contract ends
// the session partial (the work stays, and resume runs the contract
// again).
//
// A run its budget stopped lands its work as it is, unchecked (the
// contract holds work the model called done), as a draft marked
// [budget exhausted], and ends budget_exhausted.
func (s *run) finish(ctx context.Context, out outcome) outcome {
	if s.rec.Kind == review.Kind {
		return s.finishReview(ctx, out)
	}
	if out.status == state.BudgetExhausted {
		return s.finishSpent(ctx, out)
	}
	changed, err := s.freezeTree(ctx)
	if err != nil {
		return failed(state.FailInfrastructure, err)
	}
	if !changed {
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingNoChange, Detail: s.scrub(s.rec.Summary)})
		fmt.Fprintln(s.opts.Live.Progress, "nothing to land: the session changed no file")
		s.events.Add(live.Event{Kind: live.EventLand, Text: "nothing to land: the session changed no file"})
		return out
	}
	switch n := len(s.rec.Checks); n {
	case 0:
	case 1:
		fmt.Fprintln(s.opts.Live.Progress, "checking: the harness runs 1 check on the start commit and on the result")
	default:
		fmt.Fprintf(s.opts.Live.Progress, "checking: the harness runs %d checks on the start commit and on the result\n", n)
	}
	s.report.Contract = s.checks.Contract(ctx, s.rec.Checks, s.tree)
	if ctx.Err() != nil {
		s.report.Contract = nil // not run to the end: no verdict
		return outcome{status: state.Cancelled, err: fmt.Errorf("%w while the harness ran the checks", s.cancelReason(ctx))}
	}
	s.checkEvents(s.report.Contract)
	next := s.landOrShow(ctx, s.contractEnding())
	s.keepReceipt(ctx)
	return next
}

// failed is a failed outcome.
func failed(kind state.FailureKind, err error) outcome {
	return outcome{status: state.Failed, kind: kind, err: err}
}

// finishSpent ends a run its budget stopped, landing what it changed.
func (s *run) finishSpent(ctx context.Context, out outcome) outcome {
	s.spend.exhausted = true
	fmt.Fprintf(s.opts.Live.Progress, "budget exhausted: %v\n", out.err)
	changed, err := s.freezeTree(ctx)
	if err != nil {
		return failed(state.FailInfrastructure, err)
	}
	if !changed {
		return out
	}
	return s.landOrShow(ctx, out)
}

// landOrShow lands the work (land), or in a dry run prints its diff; then
// the run goes on as ending says.
func (s *run) landOrShow(ctx context.Context, ending outcome) outcome {
	if s.opts.Landing.DryRun {
		diff, err := s.git.landGit().DiffTree(ctx, s.rec.Workspace, s.rec.StartCommit, s.tree)
		if err != nil {
			return failed(state.FailInfrastructure, err)
		}
		fmt.Fprintf(s.opts.Services.Output, "%s\n", diff)
		s.events.Add(live.Event{Kind: live.EventLand, Text: "a dry run: the diff is shown, nothing lands"})
		return ending
	}
	return s.land(ctx, ending)
}

// land commits the checked tree and lands it; ending is how the run goes
// on once it has landed (idle, or partial with a broken contract). A run
// whose model called done lands here, and so does core session land.
func (s *run) land(ctx context.Context, ending outcome) (out outcome) {
	began, landed := s.opts.Services.Now(), false
	defer func() { s.landEvent(out, landed, began) }()
	if s.rec.Kind == review.Kind {
		return failed(state.FailConfiguration, errReviewLands)
	}
	if err := s.checkLanding(ctx, s.tree); err != nil {
		return failed(landingFailure(err), err)
	}
	if s.opts.Live.Interactive {
		s.report.Contract.WriteText(s.opts.Services.Output)
		answer, _ := s.ask(s.landQuestion())
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			// The person said no: the run ends here, its work kept.
			fmt.Fprintf(s.opts.Services.Output, "not landed: the work stays in %s (core session resume %s continues it)\n", s.rec.Workspace, s.rec.ID)
			ending.end = true
			return ending
		}
	}
	// The tree frozen at done, never the workspace as it is now; a tree
	// an earlier run landed lands again.
	sha, err := commitTree(ctx, s.git, s.opts.Landing.SigningKey, s.rec.Workspace, s.tree, land.CommitMessage(s.scrub(s.rec.Summary), s.rec.ID, s.report.Contract))
	if err != nil {
		return failed(state.FailInfrastructure, err)
	}
	s.rec.Commit = sha
	if err := s.origin.land(ctx, s); err != nil {
		return failed(landFailure(err), err)
	}
	s.rec.Landed, landed = true, true
	s.unlanded = false
	if t, err := s.git.landGit().TreeOf(ctx, s.rec.Workspace, s.rec.Commit); err == nil {
		s.report.LandedTree = t
	}
	if ds, err := s.git.landGit().DiffStat(ctx, s.rec.Workspace, s.rec.StartCommit, s.rec.Commit); err == nil {
		s.report.DiffStat = ds // without it the report still stands
	}
	return ending
}

// freezeTree freezes the run's box and takes the workspace's tree (see
// tree.go), and reports whether the session changed anything.
func (s *run) freezeTree(ctx context.Context) (bool, error) {
	s.freeze()
	tree, err := s.git.landGit().WorkTree(ctx, s.rec.Workspace)
	if err != nil {
		return false, err
	}
	return s.setTree(ctx, tree)
}

// setTree makes tree the one the run checks and lands, recorded in the
// report with the start commit's, and reports whether the session changed
// anything since the start commit: the files, or commits an earlier run
// landed.
func (s *run) setTree(ctx context.Context, tree string) (bool, error) {
	ws := s.rec.Workspace
	start, err := s.git.landGit().TreeOf(ctx, ws, s.rec.StartCommit)
	if err != nil {
		return false, err
	}
	s.tree, s.report.Tree, s.report.StartTree = tree, tree, start
	if tree != start {
		return true, nil
	}
	head, err := s.git.run(ctx, ws, "rev-parse", "HEAD")
	if err != nil {
		return false, fmt.Errorf("read the workspace's HEAD: %w", err)
	}
	return head != s.rec.StartCommit, nil
}

// contractEnding is how a run that reached done goes on, given its
// contract: idle, or partial when the result broke it.
func (s *run) contractEnding() outcome {
	if c := s.report.Contract; c.Broken() {
		return outcome{status: state.Partial, err: fmt.Errorf("the result broke its contract (%s): core session resume %s continues the work", c.Line(), s.rec.ID)}
	}
	return outcome{status: state.Idle}
}

// landQuestion asks what landing will really do here.
func (s *run) landQuestion() string {
	rec := s.rec
	gr, ok := s.origin.(githubRepo)
	if !ok {
		return fmt.Sprintf("commit and land branch %s in %s? [y/N] ", rec.Branch, rec.Repo)
	}
	return gr.Question(rec.PullRequest, rec.Branch)
}

// end moves the session to its terminal state, saves the record and writes
// the report. It runs whatever the ending, even after the run's context was
// cancelled: it does no I/O that a context could stop.
func (s *run) end(status state.Status, kind state.FailureKind, err error) *Report {
	s.stopWarm() // of no use any more; the report says how it ended
	s.closeBrowser()
	s.closeMCP()
	s.stopLines()
	now := s.opts.Services.Now()
	s.ctl.SetStatus(status)
	if terr := s.rec.transition(status, now); terr != nil {
		// An illegal transition is a bug; say so rather than lose the ending.
		status, kind, err = state.Failed, state.FailError, fmt.Errorf("%v (while ending: %v)", terr, err)
		s.rec.Status = state.Failed
		s.rec.EndedAt = &now
	}
	s.rec.FailureKind = kind
	if err != nil {
		s.rec.Error = s.scrub(err.Error())
	}
	s.rec.Summary = s.scrub(s.rec.Summary)
	r := s.report
	r.Status, r.FailureKind, r.Error = status, kind, s.rec.Error
	r.Summary = s.rec.Summary
	r.Base, r.StartCommit, r.Branch = s.rec.Base, s.rec.StartCommit, s.rec.Branch
	r.Commit, r.PRURL, r.Landed, r.PullRequest = s.rec.Commit, s.rec.PRURL, s.rec.Landed, s.rec.PullRequest
	r.TotalTurns = s.rec.Turns
	r.Issue = s.rec.Issue
	r.Budget, r.SpendByTool = s.budgetReport(), budget.ByTool(r.Spend)
	if c := r.Contract; c != nil {
		for i := range c.Checks {
			ch := &c.Checks[i]
			ch.Baseline.Error, ch.Result.Error = s.scrub(ch.Baseline.Error), s.scrub(ch.Result.Error)
			// The evidence is a line of the check's output.
			ch.Baseline.Evidence, ch.Result.Evidence, ch.Evidence = s.scrub(ch.Baseline.Evidence), s.scrub(ch.Result.Evidence), s.scrub(ch.Evidence)
		}
	}
	r.Unverified = r.Contract.None()
	r.EndedAt = now
	// The receipt and the report are on disk before the last event tells
	// the end, and that event before the record does: whoever sees it, finds them.
	store := s.opts.Services.Store
	if werr := store.writeReceipt(s.rec.ID, r, s.receipt, s.receiptHash); werr != nil && r.Error == "" {
		r.Error = werr.Error()
	}
	if werr := store.writeReport(s.rec.ID, r, s.scrubber); werr != nil && r.Error == "" {
		r.Error = werr.Error()
	}
	s.events.Add(live.Event{Kind: live.EventState, Status: r.Status, FailureKind: kind, Text: r.Error})
	if serr := store.save(s.rec, s.scrubber); serr != nil && r.Error == "" {
		r.Error = serr.Error()
		_ = store.writeReport(s.rec.ID, r, s.scrubber) // says why the record is not saved
	}
	return r
}

// landFailure classifies a failed landing: work that does not apply
// without the user's uncommitted work, a branch someone else moved, or a
// repository that does not let GitHub Actions open pull requests, is the
// user's state to sort out (configuration); a commit that does not
// hold the checked tree is core's own fault; anything else is git or the
// remote failing.
func landFailure(err error) state.FailureKind {
	var oe *land.OverlapError
	var me *land.MovedError
	var te *land.TreeChangedError
	var ae *gh.ActionsPullsError
	switch {
	case errors.As(err, &oe) || errors.As(err, &me) || errors.As(err, &ae):
		return state.FailConfiguration
	case errors.As(err, &te):
		return state.FailError
	}
	return state.FailInfrastructure
}
