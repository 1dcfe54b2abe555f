package review

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestJudge: the rule, one case a reason. Only a run that ran and failed
// on the head with the predicted output, and did not fail that way on
// the base, confirms; the claim's words never do.
func TestJudge(t *testing.T) {
	t.Parallel()
	red := &Ran{Exit: 1, Matched: true}
	green := &Ran{Passed: true}
	repro := func(head, base *Ran) *Reproduction {
		return &Reproduction{Path: "a_test.go", Content: "x", Command: []string{"go", "test"}, Expect: "want 5", Head: head, Base: base}
	}
	tests := []struct {
		name      string
		f         Finding
		confirmed bool
		why       string
	}{
		{name: "red on the head, green on the base", f: Finding{Reproduction: repro(red, green)}, confirmed: true, why: "fails on the head with the predicted output, and passes on the base"},
		{name: "red on the head, red otherwise on the base", f: Finding{Reproduction: repro(red, &Ran{Exit: 2})}, confirmed: true, why: "does not fail that way on the base"},
		{name: "no reproduction", f: Finding{Claim: "it is certainly broken"}, why: "no reproduction: the finding is only the model's word"},
		{name: "refused", f: Finding{Reproduction: repro(nil, nil), Why: "refused: the path is a link"}, why: "refused: the path is a link"},
		{name: "not run", f: Finding{Reproduction: repro(nil, nil)}, why: "the reproduction was not run"},
		{name: "could not run on the head", f: Finding{Reproduction: repro(&Ran{Exit: -1, Error: "no go.mod", Matched: true}, green)}, why: "it could not run on the head: no go.mod"},
		{name: "timed out on the head", f: Finding{Reproduction: repro(&Ran{Exit: -1, TimedOut: true, Matched: true}, green)}, why: "it timed out on the head"},
		{name: "passed on the head", f: Finding{Reproduction: repro(&Ran{Passed: true, Matched: true}, green)}, why: "the reproduction passed on the head"},
		{name: "no prediction", f: Finding{Reproduction: &Reproduction{Head: &Ran{Exit: 1}, Base: green}}, why: "it predicts no output"},
		{name: "output without the prediction", f: Finding{Reproduction: repro(&Ran{Exit: 1}, green)}, why: `its output does not contain the prediction "want 5"`},
		{name: "not run on the base", f: Finding{Reproduction: repro(red, nil)}, why: "it was not run on the base"},
		{name: "could not run on the base", f: Finding{Reproduction: repro(red, &Ran{Exit: -1, Error: "no go.mod"})}, why: "it could not run on the base, so nothing shows the bug is this pull request's: no go.mod"},
		{name: "timed out on the base", f: Finding{Reproduction: repro(red, &Ran{Exit: -1, TimedOut: true})}, why: "it timed out on the base"},
		{name: "fails the same way on the base", f: Finding{Reproduction: repro(red, &Ran{Exit: 1, Matched: true})}, why: "it fails the same way on the base: the bug is not this pull request's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.f.Confirmed = !tt.confirmed // Judge sets it either way
			got := Judge(tt.f)
			assert.Equal(t, tt.confirmed, got.Confirmed)
			assert.Contains(t, got.Why, tt.why)
		})
	}
}

// TestExcerpt: the lines around the prediction's first match, else the
// last ones; never more than twenty, each cut.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 50 {
		lines = append(lines, "line "+string(rune('a'+i%26)))
	}
	lines[30] = "FAIL: want 5, got -1"
	out := strings.Join(lines, "\n") + "\n"
	got := excerpt(out, "want 5")
	assert.Equal(t, 20, len(strings.Split(got, "\n")))
	assert.Equal(t, lines[25], strings.Split(got, "\n")[0], "five lines before the match")
	assert.Contains(t, got, "FAIL: want 5")

	last := excerpt(out, "not there")
	assert.Equal(t, lines[30:], strings.Split(last, "\n"), "the last twenty lines")

	long := excerpt(string(make([]byte, 1000)), "")
	assert.LessOrEqual(t, len([]rune(long)), excerptLineRune)
	assert.Empty(t, excerpt("", "x"))
}
