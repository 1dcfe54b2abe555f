package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		args        Args
		wantDone    bool
		wantSummary string
		wantOutput  string
	}{
		{name: "summary", args: Args{"summary": "Fixed the pager."}, wantDone: true, wantSummary: "Fixed the pager.", wantOutput: "done"},
		{name: "summary trimmed", args: Args{"summary": "  Added tests.\n"}, wantDone: true, wantSummary: "Added tests.", wantOutput: "done"},
		{name: "summary missing", args: Args{}, wantOutput: `done: argument "summary" is required (a string)`},
		{name: "summary blank", args: Args{"summary": "  "}, wantOutput: `done: argument "summary" must say what was done`},
		{name: "summary not a string", args: Args{"summary": []any{"a"}}, wantOutput: `done: argument "summary" must be a string, got a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runTool(t, newEnv(t, nil), "done", tt.args)
			assert.Equal(t, tt.wantDone, r.Done)
			assert.Equal(t, tt.wantSummary, r.Summary)
			assert.Equal(t, tt.wantOutput, r.Output)
		})
	}
}
