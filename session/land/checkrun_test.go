package land

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/session/receipt"
)

func TestConclusion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		ctxErr     error
		v          Verdict
		conclusion string
		title      string
	}{
		{name: "held", v: Verdict{Held: true, Contract: "held", Checks: 2}, conclusion: "success", title: "Contract held: 2 checks"},
		{name: "held by one", v: Verdict{Held: true, Contract: "held", Checks: 1}, conclusion: "success", title: "Contract held: 1 check"},
		{name: "broken", v: Verdict{Broken: true, Contract: "broken", ContractLine: "contract broken: 1 regressed"}, conclusion: "failure", title: "Contract broken: 1 regressed"},
		{name: "none", v: Verdict{Contract: "none"}, conclusion: "neutral", title: "UNVERIFIED: no checks ran"},
		{name: "unjudged", v: Verdict{Contract: "unjudged"}, conclusion: "neutral", title: "UNVERIFIED: a check could not judge the result"},
		{name: "exhausted unchecked", v: Verdict{Exhausted: true, Contract: "none"}, conclusion: "neutral", title: "Budget exhausted: the work is unfinished and unchecked"},
		{name: "exhausted held", v: Verdict{Exhausted: true, Held: true, Contract: "held"}, conclusion: "neutral", title: "Budget exhausted: the contract held for what landed"},
		{name: "exhausted broken", v: Verdict{Exhausted: true, Broken: true, ContractLine: "contract broken: 1 failing"}, conclusion: "failure", title: "Budget exhausted; contract broken: 1 failing"},
		{name: "cancelled", ctxErr: context.Canceled, v: Verdict{Held: true}, conclusion: "cancelled", title: "Cancelled: "},
		{name: "cancelled with a cause", ctxErr: fmt.Errorf("stopped: %w", context.Canceled), v: Verdict{Broken: true}, conclusion: "cancelled", title: "Cancelled: "},
		{name: "timed out", ctxErr: context.DeadlineExceeded, v: Verdict{Held: true}, conclusion: "timed_out", title: "Timed out: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, title := Conclusion(tt.ctxErr, tt.v)
			assert.Equal(t, tt.conclusion, c)
			assert.True(t, strings.HasPrefix(title, tt.title), "%q starts with %q", title, tt.title)
		})
	}
}

func TestAnnotationsQuoteTheEndOfTheOutput(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	for i := range 30 {
		fmt.Fprintf(&out, "line %d token-SECRET\n", i)
	}
	w := &Work{
		Scrub: func(s string) string { return strings.ReplaceAll(s, "SECRET", "***") },
		Verdict: Verdict{Failures: []Failure{
			{Check: "go test ./...", Verdict: "regressed", Output: out.String(), Path: "go.mod"},
			{Check: "lint", Verdict: "failing", Output: "", Path: ""}, // nowhere to sit: left out
			{Check: "make", Verdict: "timed_out", Output: strings.Repeat("é", 40<<10), Path: "Makefile"},
		}},
	}
	notes := w.annotations()
	assert.Len(t, notes, 2)
	assert.Equal(t, "go.mod", notes[0].Path)
	assert.Equal(t, "failure", notes[0].Level)
	assert.Equal(t, "go test ./...: regressed", notes[0].Title)
	assert.True(t, strings.HasPrefix(notes[0].Message, "line 10 token-***\n"), notes[0].Message)
	assert.True(t, strings.HasSuffix(notes[0].Message, "line 29 token-***"))
	assert.NotContains(t, notes[0].Message, "SECRET")
	assert.LessOrEqual(t, len(notes[1].Message), maxFailureOutput)
	assert.True(t, strings.HasPrefix(notes[1].Message, "é"), "cut on a character's start")
}

func TestReceiptLines(t *testing.T) {
	t.Parallel()
	hash := "sha256:" + strings.Repeat("ab", 32)
	w := &Work{
		Record: Record{ID: "s-1", Commit: strings.Repeat("c", 40)},
		Texts:  Texts{Verification: "### Checks\n\n| check |\n"},
		Proof:  Proof{ContractTable: "### Checks\n\n| check |\n", RunURL: "https://example.com/run/1"},
		Scrub:  func(s string) string { return s },
	}
	assert.NotContains(t, w.PullBody(), "Receipt:", "no receipt, no line")
	w.ReceiptHash = hash
	line := receipt.SummaryLine(hash)
	for name, text := range map[string]string{"body": w.PullBody(), "comment": w.PullComment(), "summary": w.checkSummary()} {
		assert.Contains(t, text, line, name)
		got, ok := receipt.HashIn(text)
		assert.True(t, ok, name)
		assert.Equal(t, hash, got, name)
	}
	assert.Contains(t, w.checkSummary(), "Session `s-1`: [the run](https://example.com/run/1).")
}
