package testclass

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClassOf(t *testing.T) {
	t.Parallel()
	var (
		green   = Side{Passed: true, Seconds: 1}
		red     = Side{Exit: 1, Seconds: 1}
		killed  = Side{Exit: -1, TimedOut: true, Seconds: 60}
		noTool  = Side{Exit: 127, Cause: "a tool is missing: pytest"}
		notHere = Side{Exit: -1, Error: "no go.mod or go.work: go test does not apply here"}
	)
	tests := []struct {
		name       string
		base, head Side
		isNew      bool
		class      Class
		reason     string
	}{
		{name: "red then green", base: red, head: green, class: TestsChange, reason: "it fails on the base (exit 1) and passes on the head"},
		{name: "new, red with the file copied in", base: red, head: green, isNew: true, class: TestsChange, reason: "copied into the base"},
		{name: "green on both", base: green, head: green, class: NotTesting, reason: "does not test the change"},
		{name: "red on the head", base: green, head: red, class: FailsOnHead},
		{name: "red on both", base: red, head: red, class: FailsOnHead},
		{name: "killed on the head", base: green, head: killed, class: TimedOut},
		{name: "killed on the base only", base: killed, head: green, class: TestsChange, reason: "killed by its timeout on the base"},
		{name: "a tool missing on the head", base: red, head: noTool, class: CouldNotRun, reason: "on the head: a tool is missing: pytest"},
		{name: "no manifest on the head", base: green, head: notHere, class: CouldNotRun, reason: "does not apply here"},
		{name: "new, and the base cannot run it", base: notHere, head: green, isNew: true, class: NewNoBase, reason: "new: it passes on the head and cannot run on the base: no go.mod"},
		{name: "changed, and the base cannot run it", base: noTool, head: green, class: CouldNotRun, reason: "on the base: a tool is missing"},
		{name: "the environment on the base does not hide a failure on the head", base: noTool, head: red, class: FailsOnHead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			class, reason := classOf(tt.base, tt.head, tt.isNew)
			assert.Equal(t, tt.class, class)
			assert.Contains(t, reason, tt.reason)
		})
	}
}
