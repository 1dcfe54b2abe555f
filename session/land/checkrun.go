package land

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/receipt"
)

// CheckRunName is the check run a landing makes on the commit it landed.
const CheckRunName = "core/contract"

// maxFailureOutput bounds the output an annotation quotes; failureLines
// is how many of its last lines it keeps.
const (
	maxFailureOutput = 64 << 10
	failureLines     = 20
)

// Failure is a check that failed on the result, as the check run's
// annotation shows it: its command, its verdict, the output it kept, and
// Path, a file of the landed tree the annotation sits on (the check's
// ecosystem manifest, else a file the change touched).
type Failure struct {
	Check, Verdict, Output, Path string
}

// checkRun is the core/contract run of a landing, once made.
type checkRun struct {
	ref gh.CheckRunRef
}

// startCheckRun makes the receipt of the landed commit (when the session
// has one) and the core/contract check run on it, in progress: on a
// re-run on the same commit, the run already there, never a second. A
// token that may not make check runs lands all the same: the reason is
// kept in s.CheckRun. It returns nil when there is no run to complete.
func (r *Repo) startCheckRun(ctx context.Context, s *Work) *checkRun {
	if s.Receipt != nil {
		data, hash, err := s.Receipt(ctx, s.Commit)
		if err != nil {
			s.ReceiptNote = "no receipt: " + s.Scrub(err.Error())
		} else {
			s.ReceiptJSON, s.ReceiptHash = data, hash
		}
	}
	found, err := r.client.FindCheckRun(ctx, r.owner, r.repoNm, s.Commit, CheckRunName)
	if err != nil {
		s.CheckRun = "no check run: " + s.Scrub(err.Error())
		return nil
	}
	report := gh.CheckRunReport{
		Name: CheckRunName, HeadSHA: s.Commit, Status: "in_progress", DetailsURL: s.RunURL, ExternalID: s.ID,
		Title: "Landing: the contract's verdict follows", Summary: s.Scrub(s.ContractTable),
	}
	if report.Summary == "" {
		report.Summary = "core is landing the session's work."
	}
	if found.ID != 0 {
		err = r.client.UpdateCheckRun(ctx, r.owner, r.repoNm, found.ID, report)
	} else {
		found, err = r.client.CreateCheckRun(ctx, r.owner, r.repoNm, report)
	}
	if err != nil {
		s.CheckRun = "no check run: " + s.Scrub(gh.CheckRunWords(err))
		return nil
	}
	s.CheckRun = found.HTMLURL
	return &checkRun{ref: found}
}

// finishCheckRun completes the landing's check run with the contract's
// conclusion, or cancelled or timed_out when the landing's ctx ended
// first. It is done even then, on a context of its own.
func (r *Repo) finishCheckRun(ctx context.Context, s *Work, cr *checkRun) {
	if cr == nil {
		return
	}
	conclusion, title := Conclusion(ctx.Err(), s.Verdict)
	report := gh.CheckRunReport{
		Name: CheckRunName, Status: "completed", Conclusion: conclusion, DetailsURL: s.RunURL, ExternalID: s.ID,
		Title: s.Scrub(title), Summary: s.checkSummary(), Annotations: s.annotations(),
	}
	if s.ReceiptJSON != nil {
		report.Text = receipt.CheckText(s.ReceiptJSON)
	}
	if err := r.client.UpdateCheckRun(context.WithoutCancel(ctx), r.owner, r.repoNm, cr.ref.ID, report); err != nil {
		s.CheckRun = "check run not completed: " + s.Scrub(gh.CheckRunWords(err))
	}
}

// Conclusion is the check run's conclusion and title for a landing that
// ended with ctxErr (nil, or its context's error) and verdict v.
func Conclusion(ctxErr error, v Verdict) (conclusion, title string) {
	switch {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		return "timed_out", "Timed out: the run ran out of time while it landed"
	case ctxErr != nil:
		return "cancelled", "Cancelled: the run was stopped while it landed"
	case v.Broken && v.Exhausted:
		return "failure", "Budget exhausted; " + v.ContractLine
	case v.Broken:
		return "failure", "Contract broken: " + strings.TrimPrefix(v.ContractLine, "contract broken: ")
	case v.Exhausted && v.Held:
		return "neutral", "Budget exhausted: the contract held for what landed"
	case v.Exhausted:
		return "neutral", "Budget exhausted: the work is unfinished and unchecked"
	case v.Held:
		return "success", fmt.Sprintf("Contract held: %d %s", v.Checks, plural(v.Checks, "check", "checks"))
	case v.Contract == string(contract.ContractUnjudged):
		return "neutral", "UNVERIFIED: a check could not judge the result"
	}
	return "neutral", "UNVERIFIED: no checks ran"
}

// checkSummary is the check run's summary: the contract's table, the
// receipt's line, and where to see the run.
func (s *Work) checkSummary() string {
	var b strings.Builder
	table := strings.TrimSpace(s.Scrub(s.ContractTable))
	if table == "" {
		table = "The harness ran no checks on the result: UNVERIFIED."
	}
	b.WriteString(table + "\n")
	if s.ReceiptHash != "" {
		b.WriteString("\n" + receipt.SummaryLine(s.ReceiptHash) + "\n")
	}
	if s.ReceiptNote != "" {
		b.WriteString("\n" + s.ReceiptNote + "\n")
	}
	fmt.Fprintf(&b, "\nSession `%s`", s.ID)
	if s.RunURL != "" {
		fmt.Fprintf(&b, ": [the run](%s)", s.RunURL)
	}
	b.WriteString(".\n")
	return b.String()
}

// annotations are one failure annotation per check that failed on the
// result, quoting the end of its output.
func (s *Work) annotations() []gh.Annotation {
	var out []gh.Annotation
	for _, f := range s.Failures {
		if f.Path == "" {
			continue
		}
		msg := tail(s.Scrub(f.Output), failureLines, maxFailureOutput)
		if strings.TrimSpace(msg) == "" {
			msg = "(no output)"
		}
		out = append(out, gh.Annotation{
			Path: f.Path, StartLine: 1, EndLine: 1, Level: "failure",
			Title: clip.Line(s.Scrub(fmt.Sprintf("%s: %s", f.Check, f.Verdict)), 200), Message: msg,
		})
	}
	return out
}

// tail is the last n lines of s, at most limit bytes of it.
func tail(s string, n, limit int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	s = strings.Join(lines[max(len(lines)-n, 0):], "\n")
	if len(s) <= limit {
		return s
	}
	cut := len(s) - limit
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return s[cut:]
}
