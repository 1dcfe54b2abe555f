package contract

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/tools"
)

// OwnRuns are the model's last run of each verification command it ran,
// the latest last.
type OwnRuns []tools.Verification

// Add records v as its command's last run.
func (o OwnRuns) Add(v tools.Verification) OwnRuns {
	o = slices.DeleteFunc(o, func(have tools.Verification) bool { return have.Command == v.Command })
	return append(o, v)
}

// claimWords find a claim of success, testWords what it is about, and
// negation a "not" just before it in the same clause.
var (
	claimWords = regexp.MustCompile(`(?i)\b(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?|successful(?:ly)?|ok|all good|clean)\b`)
	testWords  = regexp.MustCompile(`(?i)\b(?:tests?|test suite|suites?|checks?|specs?|builds?|ci|pytest|jest|vet|lint|linter|everything|all)\b`)
	negation   = regexp.MustCompile(`(?i)\b(?:not|never|no longer|cannot|can't|don't|doesn't|didn't|won't|isn't|aren't|wasn't|weren't)\b[^,;:]{0,24}$`)
	// sentenceEnd ends a sentence when a capital letter or the end
	// follows (so that ./... in a command does not end one).
	sentenceEnd = regexp.MustCompile(`[.!?]+(?:\s+|$)`)
)

// sentences splits text into its sentences: at line ends, and at a full
// stop, a question or an exclamation mark followed by a capital or the
// end.
func sentences(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		start := 0
		for _, loc := range sentenceEnd.FindAllStringIndex(line, -1) {
			if loc[1] < len(line) && !unicode.IsUpper(rune(line[loc[1]])) {
				continue
			}
			out = append(out, line[start:loc[0]])
			start = loc[1]
		}
		out = append(out, strings.TrimSpace(line[start:]))
	}
	return out
}

// successClaim returns the sentence of summary that claims the tests (or
// the build, the checks) pass, or "" when none does.
func successClaim(summary string) string {
	for _, sentence := range sentences(summary) {
		if !testWords.MatchString(sentence) {
			continue
		}
		for _, loc := range claimWords.FindAllStringIndex(sentence, -1) {
			if !negation.MatchString(sentence[:loc[0]]) {
				return clip.Line(strings.TrimSpace(sentence), 120)
			}
		}
	}
	return ""
}

// OwnRunContradicts says, when the model's done summary claims success
// and its own last run of a verification command failed, so: the model
// said "all tests pass"; its own last run of `pytest` exited 1. The run
// named is its last verification command when that failed, or else the
// last failed run of a command that is one of the checks. "" when the
// summary claims nothing or no such run failed.
func OwnRunContradicts(summary string, runs OwnRuns, checks []Check) string {
	claim := successClaim(summary)
	if claim == "" || len(runs) == 0 {
		return ""
	}
	failed := func(v tools.Verification) bool { return v.ExitCode != 0 }
	isCheck := func(v tools.Verification) bool {
		argv, err := lang.SplitCommand(v.Command)
		return err == nil && slices.ContainsFunc(checks, func(c Check) bool { return slices.Equal(c.Command, argv) })
	}
	var bad *tools.Verification
	if last := runs[len(runs)-1]; failed(last) {
		bad = &last
	} else {
		for i := len(runs) - 1; i >= 0; i-- {
			if failed(runs[i]) && isCheck(runs[i]) {
				bad = &runs[i]
				break
			}
		}
	}
	if bad == nil {
		return ""
	}
	how := fmt.Sprintf("exited %d", bad.ExitCode)
	if bad.ExitCode < 0 {
		how = "did not finish (killed, or it could not start)"
	}
	return fmt.Sprintf("the model said %q; its own last run of `%s` %s", claim, clip.Line(bad.Command, 120), how)
}
