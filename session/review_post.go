package session

import (
	"context"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/review"
)

// Findings of a review posted on GitHub: the core/review check run's page
// (or "no check run: " and why), and what could not be done to its line
// comments.
const (
	FindingReviewCheckRun FindingKind = "review_check_run"
	FindingReviewComments FindingKind = "review_comments"
)

// reviewAfterwards makes the core/review check run of a review posted
// (out) and keeps in the report what it and the line comments came to.
// Neither fails the review: a token that may not make check runs (a
// personal token) is said, in GitHub's words.
func (s *run) reviewAfterwards(ctx context.Context, pr review.Target, res review.Result, out review.Posted) {
	for _, n := range out.Notes {
		s.report.Findings = append(s.report.Findings, Finding{Kind: FindingReviewComments, Detail: s.scrub(n)})
	}
	page, err := review.CheckRun(ctx, s.opts.Services.GitHub, pr, res, out.URL, s.scrub)
	if err != nil {
		page = "no check run: " + s.scrub(gh.CheckRunWords(err))
	}
	s.report.Findings = append(s.report.Findings, Finding{Kind: FindingReviewCheckRun, Detail: page})
}
