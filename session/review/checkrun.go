package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/contract"
)

// CheckRunName is the check run a review makes on the head it reviewed.
const CheckRunName = "core/review"

// CheckRunner is what the review's check run needs of GitHub; *gh.Client
// is one.
type CheckRunner interface {
	PutCheckRun(ctx context.Context, owner, name string, r gh.CheckRunReport) (gh.CheckRunRef, error)
}

// CheckRun makes r's verdict the one core/review check run on r.Head (a
// re-run on the same head updates it) and returns its page. Its summary
// links the review at reviewURL; scrub is applied to all it says. A
// token that may not make check runs is gh.ErrCheckRunsRefused.
func CheckRun(ctx context.Context, c CheckRunner, p Target, r Result, reviewURL string, scrub func(string) string) (string, error) {
	conclusion, title := Conclusion(r)
	report := gh.CheckRunReport{
		Name: CheckRunName, HeadSHA: r.Head, Status: "completed", Conclusion: conclusion, DetailsURL: reviewURL,
		ExternalID: r.SessionID, Title: title, Summary: scrub(checkSummary(r, reviewURL)),
	}
	for _, a := range annotations(r) {
		a.Title, a.Message = scrub(a.Title), scrub(a.Message)
		report.Annotations = append(report.Annotations, a)
	}
	ref, err := c.PutCheckRun(ctx, p.Owner, p.Name, report)
	if err != nil {
		return "", err
	}
	return ref.HTMLURL, nil
}

// Conclusion is the check run's conclusion and title for r: failure for
// a confirmed finding or a check red on the head that was green on the
// base; neutral for unconfirmed findings only, or when the harness could
// not judge the head (UNVERIFIED); success otherwise.
func Conclusion(r Result) (conclusion, title string) {
	confirmed, unconfirmed, regressed := r.Confirmed(), r.Unconfirmed(), regressions(r.Contract)
	switch {
	case confirmed > 0 && regressed > 0:
		return "failure", fmt.Sprintf("%d confirmed %s; %d %s red on the head, green on the base",
			confirmed, plural(confirmed, "finding", "findings"), regressed, plural(regressed, "check", "checks"))
	case confirmed > 0:
		return "failure", fmt.Sprintf("%d confirmed %s", confirmed, plural(confirmed, "finding", "findings"))
	case regressed > 0:
		return "failure", fmt.Sprintf("no confirmed finding; %d %s red on the head, green on the base", regressed, plural(regressed, "check", "checks"))
	case r.Contract.None():
		return "neutral", "UNVERIFIED: no checks ran; " + unconfirmedWords(unconfirmed)
	case r.Contract.Unjudged():
		return "neutral", "UNVERIFIED: a check could not judge the head; " + unconfirmedWords(unconfirmed)
	case unconfirmed > 0:
		return "neutral", unconfirmedWords(unconfirmed)
	}
	return "success", "no confirmed finding"
}

// unconfirmedWords says there is no confirmed finding, and how many
// unconfirmed ones.
func unconfirmedWords(n int) string {
	if n == 0 {
		return "no confirmed finding"
	}
	return fmt.Sprintf("no confirmed finding, %d unconfirmed", n)
}

// regressions counts the checks green on the base and red on the head.
func regressions(c *contract.Contract) int {
	if c == nil {
		return 0
	}
	n := 0
	for _, r := range c.Checks {
		if r.Verdict == contract.VerdictRegressed {
			n++
		}
	}
	return n
}

// checkSummary is the check run's summary: the counts, the checks' table
// and the review.
func checkSummary(r Result, reviewURL string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "core reviewed %s: %d confirmed %s, %d unconfirmed.\n\n", clip.Hash(r.Head),
		r.Confirmed(), plural(r.Confirmed(), "finding", "findings"), r.Unconfirmed())
	b.WriteString(checksTable(r.Contract))
	fmt.Fprintf(&b, "\nSession `%s`", r.SessionID)
	if reviewURL != "" {
		fmt.Fprintf(&b, ": [the review](%s)", reviewURL)
	}
	b.WriteString(".\n")
	return b.String()
}

// annotations are one failure annotation per confirmed finding, at its
// line (the first when it names none), with the claim and the command.
func annotations(r Result) []gh.Annotation {
	var out []gh.Annotation
	for _, f := range r.Findings {
		if !f.Confirmed || f.File == "" {
			continue
		}
		line := max(f.Line, 1)
		msg := strings.TrimSpace(f.Claim)
		if rp := f.Reproduction; rp != nil && rp.Head != nil {
			msg += fmt.Sprintf("\n\nReproduced by: %s (%s on the head; on the base it %s)", commandLine(rp.Command), headWords(rp.Head), baseWords(rp.Base))
		}
		out = append(out, gh.Annotation{Path: f.File, StartLine: line, EndLine: line, Level: "failure",
			Title: clip.Line("Confirmed: "+f.Claim, 200), Message: msg})
	}
	return out
}
