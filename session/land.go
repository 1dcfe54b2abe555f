package session

import (
	"context"
	"fmt"
	"strings"
)

// finish lands the work of a run that ended done, then ends the session.
func (s *run) finish(ctx context.Context, out outcome) *Report {
	if out.status != StatusDone {
		return s.end(out.status, out.kind, out.err)
	}
	if s.opts.DryRun {
		diff, err := diffSince(ctx, s.git, s.rec.Workspace, s.rec.StartCommit)
		if err != nil {
			return s.end(StatusFailed, FailInfrastructure, err)
		}
		if diff == "" {
			fmt.Fprintln(s.opts.Output, "dry run: no changes")
		} else {
			fmt.Fprintf(s.opts.Output, "%s\n", diff)
		}
		return s.end(StatusDone, "", nil)
	}
	if err := s.checkLanding(ctx); err != nil {
		return s.end(StatusFailed, landingFailure(err), err)
	}
	if s.opts.Interactive {
		answer, _ := s.ask("commit, push, and open a PR? [y/N] ")
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintf(s.opts.Output, "not landed: the work stays in %s (core session resume %s continues it)\n", s.rec.Workspace, s.rec.ID)
			return s.end(StatusDone, "", nil)
		}
	}
	sha, err := commitAll(ctx, s.git, s.rec.Workspace, commitMessage(s.scrub(s.rec.Summary), s.rec.ID))
	if err != nil {
		return s.end(StatusFailed, FailInfrastructure, err)
	}
	if sha == "" {
		// Nothing new: a branch landed by an earlier run stays as it was.
		if head, err := s.git.run(ctx, s.rec.Workspace, "rev-parse", "HEAD"); err == nil && head != s.rec.StartCommit {
			sha = head
		} else {
			fmt.Fprintln(s.opts.Progress, "nothing to land: the session changed no file")
			return s.end(StatusDone, "", nil)
		}
	}
	s.rec.Commit = sha
	if err := s.origin.land(ctx, s); err != nil {
		return s.end(StatusFailed, FailInfrastructure, err)
	}
	s.rec.Landed = true
	return s.end(StatusDone, "", nil)
}

// end moves the session to its terminal state, saves the record and writes
// the report. It runs whatever the ending, even after the run's context was
// cancelled: it does no I/O that a context could stop.
func (s *run) end(status Status, kind FailureKind, err error) *Report {
	now := s.opts.Now()
	if terr := s.rec.transition(status, now); terr != nil {
		// An illegal transition is a bug; say so rather than lose the ending.
		status, kind, err = StatusFailed, FailError, fmt.Errorf("%v (while ending: %v)", terr, err)
		s.rec.Status = StatusFailed
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
	r.Verified = append([]Verification{}, s.rec.Verified...)
	r.Unverified = len(r.Verified) == 0
	r.EndedAt = now
	if serr := s.opts.Store.save(s.rec, s.scrubber); serr != nil && r.Error == "" {
		r.Error = serr.Error()
	}
	if werr := s.opts.Store.writeReport(s.rec.ID, r, s.scrubber); werr != nil && r.Error == "" {
		r.Error = werr.Error()
	}
	return r
}
