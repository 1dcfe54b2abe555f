package review

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/testclass"
)

// Counts is how many of the report's findings the harness confirmed and
// how many it did not.
func (r Report) Counts() (confirmed, unconfirmed int) {
	for _, f := range r.Findings {
		if f.Confirmed {
			confirmed++
		} else {
			unconfirmed++
		}
	}
	return confirmed, unconfirmed
}

// FindingsText is the findings' counts in a few words: "1 confirmed, 2
// unconfirmed", "no finding".
func (r Report) FindingsText() string {
	confirmed, unconfirmed := r.Counts()
	switch {
	case confirmed == 0 && unconfirmed == 0:
		return "no finding"
	case unconfirmed == 0:
		return fmt.Sprintf("%d confirmed", confirmed)
	case confirmed == 0:
		return fmt.Sprintf("%d unconfirmed", unconfirmed)
	}
	return fmt.Sprintf("%d confirmed, %d unconfirmed", confirmed, unconfirmed)
}

// Line is the review's end-of-run line: its findings and, when the
// harness classified them, the pull request's tests.
func (r Report) Line() string {
	line := "review: " + r.FindingsText()
	if r.Tests != nil {
		line += "; the pull request's tests: " + testclass.Summary(*r.Tests)
	}
	return line
}

// WriteText prints the review for a terminal: Line, then each finding,
// confirmed first, with where it points, its claim and the harness's runs
// of its reproduction, then the classification's table. Every value is
// flattened to one bounded line: a report's text never moves the cursor.
func (r Report) WriteText(w io.Writer) {
	fmt.Fprintln(w, r.Line())
	findings := slices.Clone(r.Findings)
	slices.SortStableFunc(findings, func(a, b Finding) int {
		return cmp.Compare(btoi(b.Confirmed), btoi(a.Confirmed))
	})
	for _, f := range findings {
		fmt.Fprintf(w, "  %s %s: %s\n", map[bool]string{true: "confirmed", false: "unconfirmed"}[f.Confirmed], where(f), termLine(f.Claim, 200))
		if p := f.Reproduction; p != nil && len(p.Command) > 0 {
			fmt.Fprintf(w, "    reproduction: %s (head: %s; base: %s)\n", termLine(strings.Join(p.Command, " "), 200), ranText(p.Head), ranText(p.Base))
		} else if f.Why != "" {
			fmt.Fprintf(w, "    %s\n", termLine(f.Why, 200))
		}
	}
	if r.Tests != nil && (len(r.Tests.Files) > 0 || r.Tests.Error != "") {
		fmt.Fprintln(w, "the pull request's tests:")
		for line := range strings.Lines(testclass.Text(*r.Tests)) {
			fmt.Fprint(w, "  "+line)
		}
	}
}

// where is a finding's file:line, or its file alone.
func where(f Finding) string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", termLine(f.File, 120), f.Line)
	}
	return cmp.Or(termLine(f.File, 120), "(no file)")
}

// ranText is one side's run of a reproduction in a few words.
func ranText(r *Ran) string {
	switch {
	case r == nil:
		return "not run"
	case r.Error != "":
		return "could not run: " + termLine(r.Error, 80)
	case r.TimedOut:
		return "timed out"
	}
	return fmt.Sprintf("exit %d", r.Exit)
}

// termLine is s without control characters (a terminal's escapes), as one
// line of at most n runes.
func termLine(s string, n int) string {
	return clip.Line(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s), n)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
