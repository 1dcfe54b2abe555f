package contract

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/deps"
)

// TestCheckResultOfAnUnreachableRegistry: a check whose dependency step
// could not reach its registry failed for the environment's reason, named
// by the step itself, whatever the command printed after; a check that
// passed anyway, or that the sandbox could not run, says nothing of it.
func TestCheckResultOfAnUnreachableRegistry(t *testing.T) {
	t.Parallel()
	unreachable := &deps.Unreachable{Eco: "python", Host: "127.0.0.1:9", Cause: "connection refused",
		Evidence: "WARNING: Retrying ... Failed to establish a new connection: [Errno 111] Connection refused"}
	tests := []struct {
		name          string
		r             sandbox.Result
		err           error
		cause, error_ string
		passed        bool
	}{
		{name: "the step could not reach its registry",
			r:     sandbox.Result{ExitCode: 1, Output: "E   assert 1 == 2\n1 failed in 0.1s\n", Deps: unreachable},
			cause: causeUnreachable + ": 127.0.0.1:9"},
		{name: "it passed without them",
			r: sandbox.Result{ExitCode: 0, Output: "1 passed\n", Deps: unreachable}, passed: true},
		{name: "the code's failure, every registry reached",
			r: sandbox.Result{ExitCode: 1, Output: "E   assert 1 == 2\n1 failed in 0.1s\n"}},
		{name: "stopped",
			r: sandbox.Result{ExitCode: -1}, err: CheckStopped{context.Canceled}, error_: "stopped: context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckResultOf(tt.r, tt.err, nil)
			assert.Equal(t, tt.passed, got.Passed)
			assert.Equal(t, tt.cause, got.Cause)
			assert.Equal(t, tt.error_, got.Error)
			if tt.cause != "" {
				assert.Contains(t, got.Evidence, "Failed to establish a new connection")
				assert.Equal(t, VerdictEnvironment, verdictOf(got, got), "an unreachable registry on both sides judges nothing")
			}
		})
	}
}
