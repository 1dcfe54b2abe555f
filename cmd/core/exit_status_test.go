package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

// TestExitStatus: each ending has its own exit status; a run whose
// contract could not judge a check (the environment's) exits 4, apart
// from one that held (0) and one that broke it (partial, 2).
func TestExitStatus(t *testing.T) {
	t.Parallel()
	unjudged := &contract.Contract{Verdict: contract.ContractUnjudged}
	tests := []struct {
		name string
		rep  session.Report
		want int
	}{
		{name: "completed", rep: session.Report{ReportOutcome: session.ReportOutcome{Status: state.Completed}}, want: 0},
		{name: "completed, held", rep: session.Report{
			ReportOutcome:      session.ReportOutcome{Status: state.Completed},
			ReportVerification: session.ReportVerification{Contract: &contract.Contract{Verdict: contract.ContractHeld}},
		}, want: 0},
		{name: "completed, unjudged", rep: session.Report{
			ReportOutcome:      session.ReportOutcome{Status: state.Completed},
			ReportVerification: session.ReportVerification{Contract: unjudged},
		}, want: 4},
		{name: "idle, unjudged", rep: session.Report{
			ReportOutcome:      session.ReportOutcome{Status: state.Idle},
			ReportVerification: session.ReportVerification{Contract: unjudged},
		}, want: 4},
		{name: "partial", rep: session.Report{
			ReportOutcome:      session.ReportOutcome{Status: state.Partial},
			ReportVerification: session.ReportVerification{Contract: &contract.Contract{Verdict: contract.ContractBroken}},
		}, want: 2},
		{name: "budget exhausted", rep: session.Report{ReportOutcome: session.ReportOutcome{Status: state.BudgetExhausted}}, want: 3},
		{name: "cancelled", rep: session.Report{ReportOutcome: session.ReportOutcome{Status: state.Cancelled}}, want: 130},
		{name: "failed", rep: session.Report{ReportOutcome: session.ReportOutcome{Status: state.Failed}}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, exitStatus(&tt.rep))
		})
	}
}
