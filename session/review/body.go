package review

import (
	"fmt"
	"strings"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/testclass"
	"github.com/coreagent/core/status"
)

// maxBody keeps a review's body under GitHub's 65,536 characters.
const maxBody = 60000

// Result is what a review run found: the model's summary, and the
// contract of the checks run on Base (the start commit) and on Head's
// tree.
type Result struct {
	SessionID  string
	Base, Head string // commits
	Summary    string
	Contract   *contract.Contract
	Turns      int
	Tokens     int
	// Findings are the model's findings as the harness judged them, in
	// the order the model reported them.
	Findings []Finding
	// Tests is the harness's classification of the pull request's own
	// tests; nil when it did not run.
	Tests *testclass.Classification
	// CostUSD is what the run spent (nil: no price known); Exhausted
	// says its budget ran out (the review then holds what was confirmed
	// so far).
	CostUSD   *float64
	Exhausted bool
}

// Body is the review's text: what core did (and did not do), the
// harness's checks on base and head, the model's review, and the marker
// that finds this head's review again.
func Body(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "core reviewed this head (%s) against the base (%s), session `%s`. It changed no code and pushed nothing.\n\n",
		clip.Hash(r.Head), clip.Hash(r.Base), r.SessionID)
	b.WriteString(strings.ReplaceAll(r.Contract.Markdown(), "on the start commit and on the result", "on the base and on the head"))
	b.WriteString("\n### Review\n\n")
	sum := strings.TrimSpace(r.Summary)
	if sum == "" {
		sum = "(The model said nothing.)"
	}
	tail := fmt.Sprintf("\n\nThe review is the model's reading of the diff: core has not yet reproduced its findings.\n\nTurns: %d, tokens: %d.\n\n%s\n",
		r.Turns, r.Tokens, status.ReviewMarker(r.Head))
	if room := maxBody - b.Len() - len(tail); len(sum) > room {
		sum = cut(sum, max(room-100, 0)) + "\n\n(cut: the review was too long for GitHub)"
	}
	b.WriteString(sum)
	b.WriteString(tail)
	return b.String()
}

// cut keeps at most n bytes of s, never splitting a character.
func cut(s string, n int) string {
	r := []rune(s)
	out := 0
	for i, c := range r {
		if out+len(string(c)) > n {
			return string(r[:i])
		}
		out += len(string(c))
	}
	return s
}
