package review

import (
	"strings"

	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/testclass"
)

// The bounds on an excerpt of a reproduction's output.
const (
	excerptLines    = 20  // lines
	excerptLineRune = 300 // runes a line
	excerptBefore   = 5   // lines shown before the prediction's
)

// ranOf is one side's run of a reproduction, from the contract's result:
// whether its whole kept output contains expect, its hash, and an excerpt
// of it, scrubbed. A run that could not run, or failed for the
// environment's sake (a tool missing, a dependency unreachable), has an
// Error: it says nothing of the code.
func ranOf(res contract.CheckResult, expect string, scrub func(string) string) *Ran {
	out := &Ran{Exit: res.Exit, Passed: res.Passed, TimedOut: res.TimedOut, Seconds: res.Seconds,
		OutputHash: testclass.OutputHash(res.Output),
		Matched:    expect != "" && strings.Contains(res.Output, expect),
		Excerpt:    excerpt(scrub(res.Output), expect),
		Error:      scrub(res.Error)}
	if out.Error == "" && !res.Passed && res.Cause != "" {
		out.Error = scrub("it failed for the environment's sake: " + res.Cause)
	}
	return out
}

// excerpt is at most excerptLines lines of output: those around expect's
// first match, else the last ones; each line cut to excerptLineRune runes.
func excerpt(output, expect string) string {
	output = strings.TrimRight(output, "\n")
	if output == "" {
		return ""
	}
	lines := strings.Split(output, "\n")
	start := max(0, len(lines)-excerptLines)
	if i := strings.Index(output, expect); expect != "" && i >= 0 {
		at := strings.Count(output[:i], "\n")
		start = min(max(0, at-excerptBefore), start)
	}
	lines = lines[start:min(len(lines), start+excerptLines)]
	for i, l := range lines {
		if r := []rune(l); len(r) > excerptLineRune {
			lines[i] = string(r[:excerptLineRune-1]) + "…"
		}
	}
	return strings.Join(lines, "\n")
}
