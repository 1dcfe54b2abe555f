// Package clip cuts text down to what a one-line display holds: a value
// flattened to one line of bounded length (Line), a hash to the digits
// people read (Hash), and text quoted in Markdown held in a fence it cannot
// close (Fence). The contract's rendering, the budget's, the event
// log, the console's pages and the audit trail all show text so.
package clip

import "strings"

// Line flattens s to one line of at most n runes: every run of white
// space (new lines included) becomes one space, and a longer line ends in
// "…".
func Line(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Hash is a commit, tree or chain hash in its first twelve digits.
func Hash(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// Backticks is the length of the longest run of backticks in s.
func Backticks(s string) int {
	best, n := 0, 0
	for i := range len(s) {
		if s[i] == '`' {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// Fence is the fence of a Markdown code block that quotes s: three
// backticks, or more than the longest run of them in s, so nothing in s
// can end the block.
func Fence(s string) string { return strings.Repeat("`", max(3, Backticks(s)+1)) }
