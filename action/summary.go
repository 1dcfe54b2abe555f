package action

import (
	"fmt"
	"strings"
	"time"

	"github.com/coreagent/core/session"
)

// stepSummary renders a run report as the job's step summary.
func stepSummary(mode string, rep *session.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## core %s: %s\n\n", mode, outcome(rep))
	if f, ok := rep.Finding(session.FindingReview); ok {
		fmt.Fprintf(&b, "Review: %s (%s)\n\n", rep.PRURL, f.Detail)
	} else if rep.PRURL != "" {
		fmt.Fprintf(&b, "Pull request: %s\n\n", rep.PRURL)
	}
	if rep.Error != "" {
		fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(rep.Error, "\n", "\n> "))
	}
	if rep.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", rep.Summary)
	}
	b.WriteString(rep.OwnRunMarkdown())
	if f, ok := rep.Finding(session.FindingNoChange); ok {
		fmt.Fprintf(&b, "No change: the model called done without changing anything, so nothing landed. Its reason: %s\n\n", f.Detail)
	} else {
		b.WriteString(rep.Contract.Markdown() + "\n")
	}
	fmt.Fprintf(&b, "### Turns\n\n| turn | tool | target | duration | tokens |\n|---|---|---|---|---|\n")
	for _, st := range rep.Steps {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %d |\n", st.Turn, cell(st.Tool), cell(st.Target), st.Duration.Round(time.Millisecond), st.Tokens)
	}
	fmt.Fprintf(&b, "\nTokens: %d (prompt %d, completion %d) in %d turns. %s Session `%s`, branch `%s`.\n",
		rep.Usage.TotalTokens, rep.Usage.PromptTokens, rep.Usage.CompletionTokens, rep.Turns, costLine(rep), rep.ID, rep.Branch)
	if len(rep.Files) > 0 {
		// The browser's screenshots and console log, in the artifact.
		fmt.Fprintf(&b, "\nFiles (in the artifact, under `%s/%s/`): `%s`.\n", artifactsDir, rep.ID, strings.Join(rep.Files, "`, `"))
	}
	return b.String()
}

// outcome says how a run ended, in a few words.
func outcome(rep *session.Report) string {
	s := string(rep.Status)
	if rep.FailureKind != "" {
		s += " (" + string(rep.FailureKind) + ")"
	}
	return s
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
