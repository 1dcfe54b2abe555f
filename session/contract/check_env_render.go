package contract

import (
	"fmt"
	"strings"
)

// envWords says why a check could not judge the code, with the line that
// shows it: the environment's, not the code's: a tool is missing: xo
// (sh: 1: xo: not found).
func envWords(r CheckRun) string {
	s := "the environment's, not the code's: " + r.Cause
	if r.Evidence != "" {
		s += " (" + r.Evidence + ")"
	}
	return s
}

// unjudgedWords names the checks that could not judge the code, each with
// its cause: `npm test` could not be judged (a tool is missing: xo).
func (c *Contract) unjudgedWords() string {
	var parts []string
	for _, r := range c.Checks {
		if r.Verdict == VerdictEnvironment {
			parts = append(parts, fmt.Sprintf("%s could not be judged (%s)", r.String(), r.Cause))
		}
	}
	return strings.Join(parts, "; ")
}

// writeEnvironment lists, under the contract's table, each check that
// could not judge the code: UNVERIFIED, with its cause and evidence.
func (c *Contract) writeEnvironment(b *strings.Builder) {
	first := true
	for _, r := range c.Checks {
		if r.Verdict != VerdictEnvironment {
			continue
		}
		if first {
			b.WriteString("\n")
			first = false
		}
		fmt.Fprintf(b, "- `%s` is UNVERIFIED: %s", MarkdownCell(r.String()), MarkdownCell("the environment's, not the code's: "+r.Cause))
		if r.Evidence != "" {
			fmt.Fprintf(b, ": `%s`", MarkdownCell(r.Evidence))
		}
		b.WriteString("\n")
	}
}
