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

// Subject makes a title of at most n runes of a line (its white space
// flattened, as Line does): the line itself when it fits; else its first
// sentence, when that fits; else the line cut at a word, with "…". rest
// is what the title left out, for the text below it: what follows the
// first sentence, or "…" and the words after the cut; "" when nothing
// was left out.
func Subject(s string, n int) (subject, rest string) {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s, ""
	}
	for i := 0; i+1 < len(r) && i < n; i++ {
		if strings.ContainsRune(".!?", r[i]) && r[i+1] == ' ' && i > 0 {
			return string(r[:i+1]), string(r[i+2:])
		}
	}
	cut := n - 1 // room for "…"
	for j := cut; j > 0; j-- {
		if r[j] == ' ' {
			return string(r[:j]) + "…", "…" + string(r[j+1:])
		}
	}
	return string(r[:cut]) + "…", "…" + string(r[cut:])
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
