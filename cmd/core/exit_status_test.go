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
		{name: "completed", rep: session.Report{Status: state.Completed}, want: 0},
		{name: "completed, held", rep: session.Report{Status: state.Completed, Contract: &contract.Contract{Verdict: contract.ContractHeld}}, want: 0},
		{name: "completed, unjudged", rep: session.Report{Status: state.Completed, Contract: unjudged}, want: 4},
		{name: "idle, unjudged", rep: session.Report{Status: state.Idle, Contract: unjudged}, want: 4},
		{name: "partial", rep: session.Report{Status: state.Partial, Contract: &contract.Contract{Verdict: contract.ContractBroken}}, want: 2},
		{name: "budget exhausted", rep: session.Report{Status: state.BudgetExhausted}, want: 3},
		{name: "cancelled", rep: session.Report{Status: state.Cancelled}, want: 130},
		{name: "failed", rep: session.Report{Status: state.Failed}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, exitStatus(&tt.rep))
		})
	}
}
