package action

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

func TestStepSummary(t *testing.T) {
	t.Parallel()
	rep := &session.Report{
		ID:            "s1",
		ReportOutcome: session.ReportOutcome{Status: state.Completed},
		ReportLanding: session.ReportLanding{PRURL: "https://x/pull/2", Branch: "core-session/s1"},
		ReportSpend:   session.ReportSpend{Turns: 2, Usage: session.Usage{PromptTokens: 90, CompletionTokens: 10, TotalTokens: 100}},
		ReportVerification: session.ReportVerification{Contract: contract.NewContract([]contract.CheckRun{{Command: []string{"go", "test", "./..."}, Source: contract.SourceModel,
			Baseline: contract.CheckResult{Exit: 1, Seconds: 2, Sandboxed: true},
			Result:   contract.CheckResult{Exit: 0, Passed: true, Seconds: 1.5, Sandboxed: true}}}, 2*time.Minute)},
		ReportRun: session.ReportRun{Steps: []session.Step{{Turn: 1, Tool: "edit_file", Target: "a|b.go", Duration: 1500 * time.Millisecond, Tokens: 50}}},
	}
	s := stepSummary("fix", rep)
	assert.Contains(t, s, "## core fix: completed\n")
	assert.Contains(t, s, "Pull request: https://x/pull/2")
	assert.Contains(t, s, "| `go test ./...` | fixed | exit 1 (2.0s, sandboxed) | exit 0 (1.5s, sandboxed) |")
	assert.Contains(t, s, "**Contract held.**")
	assert.Contains(t, statusText(rep), "contract held: 1 of 1 checks pass")
	assert.Contains(t, s, "| 1 | edit_file | a\\|b.go | 1.5s | 50 |")
	assert.Contains(t, s, "Tokens: 100 (prompt 90, completion 10) in 2 turns.")
	assert.NotContains(t, s, "UNVERIFIED")
	assert.NotContains(t, s, "Files")

	rep.Files = []string{"browser/screenshot-1.png", "browser/console.log"}
	assert.Contains(t, stepSummary("fix", rep), "\nFiles (in the artifact, under `.core-session/s1/`): `browser/screenshot-1.png`, `browser/console.log`.\n")

	rep.Contract, rep.Unverified = nil, true
	rep.Status, rep.FailureKind, rep.Error = state.Failed, state.FailStalled, "consecutive malformed replies, giving up"
	s = stepSummary("fix", rep)
	assert.Contains(t, s, "## core fix: failed (stalled)")
	assert.Contains(t, s, "> consecutive malformed replies, giving up")
	assert.Contains(t, s, "this patch is UNVERIFIED")
	assert.Contains(t, statusText(rep), "core failed (stalled): consecutive malformed replies")
}

func TestStatusTextShowsTheContract(t *testing.T) {
	t.Parallel()
	broken := contract.NewContract([]contract.CheckRun{
		{Command: []string{"go", "vet", "./..."}, Source: contract.SourceUser, Baseline: contract.CheckResult{Passed: true}, Result: contract.CheckResult{Passed: true}},
		{Command: []string{"go", "test", "./..."}, Source: contract.SourceUser, Baseline: contract.CheckResult{Passed: true}, Result: contract.CheckResult{Exit: 1}},
	}, time.Minute)
	tests := []struct {
		name string
		rep  *session.Report
		want []string
	}{
		{name: "broken", rep: &session.Report{
			ID:                 "s1",
			ReportOutcome:      session.ReportOutcome{Status: state.Partial},
			ReportLanding:      session.ReportLanding{PRURL: "https://x/pull/2"},
			ReportSpend:        session.ReportSpend{Turns: 3},
			ReportVerification: session.ReportVerification{Contract: broken},
		},
			want: []string{"core landed its work as a draft, but contract broken: 1 regressed: https://x/pull/2 (3 turns).", "| `go test ./...` | **regressed** |"}},
		{name: "unjudged", rep: &session.Report{
			ID:            "s1",
			ReportOutcome: session.ReportOutcome{Status: state.Completed},
			ReportLanding: session.ReportLanding{PRURL: "https://x/pull/2"},
			ReportSpend:   session.ReportSpend{Turns: 3},
			ReportVerification: session.ReportVerification{Contract: contract.NewContract([]contract.CheckRun{
				{Command: []string{"npm", "test"}, Source: contract.SourceUser, Baseline: contract.CheckResult{Exit: 127, Cause: "a tool is missing: xo", Evidence: "sh: 1: xo: not found"},
					Result: contract.CheckResult{Exit: 127, Cause: "a tool is missing: xo", Evidence: "sh: 1: xo: not found"}},
			}, time.Minute)},
		},
			want: []string{"core is done: https://x/pull/2 (**UNVERIFIED**: contract unjudged: npm test could not be judged (a tool is missing: xo); 3 turns)."}},
		{name: "no contract", rep: &session.Report{
			ID:            "s1",
			ReportOutcome: session.ReportOutcome{Status: state.Completed},
			ReportLanding: session.ReportLanding{PRURL: "https://x/pull/2"},
			ReportSpend:   session.ReportSpend{Turns: 3},
		},
			want: []string{"core is done: https://x/pull/2 (**UNVERIFIED**: the harness ran no checks; 3 turns)."}},
		{name: "a review on a fork's pull request", rep: &session.Report{
			ID:            "s1",
			ReportOutcome: session.ReportOutcome{Status: state.Completed},
			ReportLanding: session.ReportLanding{PRURL: "https://x/pull/2#pullrequestreview-9"},
			ReportSpend:   session.ReportSpend{Turns: 3},
			ReportRun:     session.ReportRun{Findings: []session.Finding{{Kind: session.FindingReview, Detail: "a review with 2 suggested changes and 0 patches on pull request #2, from the fork m/x: nothing was pushed"}}},
		},
			want: []string{"core is done: a review with 2 suggested changes and 0 patches on pull request #2, from the fork m/x: nothing was pushed: https://x/pull/2#pullrequestreview-9 (**UNVERIFIED**: the harness ran no checks; 3 turns)."}},
		{name: "a review, broken", rep: &session.Report{
			ID:                 "s1",
			ReportOutcome:      session.ReportOutcome{Status: state.Partial},
			ReportLanding:      session.ReportLanding{PRURL: "https://x/pull/2#pullrequestreview-9"},
			ReportSpend:        session.ReportSpend{Turns: 3},
			ReportVerification: session.ReportVerification{Contract: broken},
			ReportRun:          session.ReportRun{Findings: []session.Finding{{Kind: session.FindingReview, Detail: "a review with 1 suggested change and 1 patch on pull request #2, from the fork m/x: nothing was pushed"}}},
		},
			want: []string{"core posted its work as a review with 1 suggested change and 1 patch on pull request #2, from the fork m/x: nothing was pushed, but contract broken: 1 regressed: https://x/pull/2#pullrequestreview-9 (3 turns).", "| `go test ./...` | **regressed** |"}},
		{name: "no change", rep: &session.Report{
			ID:            "s1",
			ReportOutcome: session.ReportOutcome{Status: state.Completed},
			ReportRun:     session.ReportRun{Findings: []session.Finding{{Kind: session.FindingNoChange, Detail: "already fixed"}}},
		},
			want: []string{"core is done, with no change to land (session `s1`): already fixed", "Cost: no price set."}},
		{name: "budget exhausted", rep: &session.Report{
			ID:            "s1",
			ReportOutcome: session.ReportOutcome{Status: state.BudgetExhausted, Error: "the budget of $1.0000 (--budget-usd) would be passed"},
			ReportLanding: session.ReportLanding{PRURL: "https://x/pull/2", Landed: true},
			ReportSpend:   session.ReportSpend{Turns: 2, CostUSD: ptr(0.75), Budget: &budget.BudgetReport{USD: 1, SpentUSD: ptr(0.75), SpentTokens: 750, Exhausted: true, NextTokens: 4500, NextUSD: ptr(0.45)}},
		},
			want: []string{"core stopped at its budget and landed its unfinished work as a draft marked [budget exhausted]: https://x/pull/2 (2 turns).",
				"Cost: $0.7500; budget: $0.7500 of $1.0000 (--budget-usd); exhausted: the next request (about 4500 tokens, $0.4500) would have passed it and was not sent."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := statusText(tt.rep)
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
		})
	}
	s := stepSummary("resolve", &session.Report{
		ID:            "s1",
		ReportOutcome: session.ReportOutcome{Status: state.Completed},
		ReportLanding: session.ReportLanding{PRURL: "https://x/pull/2#pullrequestreview-9"},
		ReportRun:     session.ReportRun{Findings: []session.Finding{{Kind: session.FindingReview, Detail: "a review with 1 suggested change"}}},
	})
	assert.Contains(t, s, "Review: https://x/pull/2#pullrequestreview-9 (a review with 1 suggested change)")
	assert.NotContains(t, s, "Pull request:")
	s = stepSummary("fix", &session.Report{
		ID:                 "s1",
		ReportOutcome:      session.ReportOutcome{Status: state.Partial},
		ReportVerification: session.ReportVerification{Contract: broken},
	})
	assert.Less(t, strings.Index(s, "go test"), strings.Index(s, "go vet"), "a regression is named first")
}

func ptr[T any](v T) *T { return &v }

// TestSummaryNamesTheModelsOwnFailingRun: the step summary and the status
// comment say, beside the model's claim, that its own last run failed.
func TestSummaryNamesTheModelsOwnFailingRun(t *testing.T) {
	t.Parallel()
	rep := &session.Report{
		ID:            "s1",
		ReportOutcome: session.ReportOutcome{Status: state.Completed, Summary: "Nothing to change: the tests pass."},
		ReportRun: session.ReportRun{Findings: []session.Finding{{Kind: session.FindingNoChange, Detail: "the tests pass"},
			{Kind: session.FindingOwnRunFailed, Detail: "the model said \"the tests pass\"; its own last run of `pytest` exited 1"}}},
	}
	assert.Contains(t, stepSummary("fix", rep), "Nothing to change: the tests pass.\n\n> [!WARNING]\n> But the model said \"the tests pass\"; its own last run of `pytest` exited 1.\n")
	assert.Contains(t, statusText(rep), "**Warning**: but the model said \"the tests pass\"; its own last run of `pytest` exited 1.")
}
