package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coreagent/core/session/contract"
)

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
