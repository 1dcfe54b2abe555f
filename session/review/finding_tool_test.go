package review

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/protocol"
	"github.com/coreagent/core/session/tools"
)

// judged is a reproducer double: what the harness would say, by the
// reproduction's expect ("red": confirmed), and the findings it was given.
type judged struct{ asked []Finding }

func (j *judged) reproduce(_ context.Context, f Finding) (Finding, error) {
	j.asked = append(j.asked, f)
	if r := f.Reproduction; r != nil {
		c := *r
		c.Head, c.Base = &Ran{Exit: 1, Excerpt: "--- FAIL: TestRepro\n" + r.Expect, Matched: r.Expect == "red"}, &Ran{Passed: true, Excerpt: "ok"}
		f.Reproduction = &c
	}
	return Judge(f), nil
}

// findingSet is a set of the finding tool alone, with its record.
func findingSet(t *testing.T, reproduce Reproducer) (*tools.Set, *tools.Env, *[]Finding) {
	t.Helper()
	var recorded []Finding
	ws, err := tools.NewWorkspace(t.TempDir())
	require.NoError(t, err)
	return tools.NewSet(FindingTool(reproduce, func(f []Finding) { recorded = f })), &tools.Env{Workspace: ws}, &recorded
}

func call(t *testing.T, set *tools.Set, env *tools.Env, args tools.Args) string {
	t.Helper()
	res, err := set.Run(t.Context(), env, tools.Call{Tool: FindingName, Args: args})
	require.NoError(t, err)
	return res.Output
}

func reproArgs(claim, expect string) tools.Args {
	return tools.Args{"file": "calc.go", "line": int64(3), "claim": claim, "path": "calc/repro_test.go",
		"content": "package calc\n", "command": "go test ./calc -run TestRepro", "expect": expect}
}

// TestFindingToolValidates: what the model got wrong comes back as an
// observation that says what to fix, and nothing is judged or recorded.
func TestFindingToolValidates(t *testing.T) {
	t.Parallel()
	good := reproArgs("Add subtracts", "red")
	with := func(k string, v any) tools.Args {
		a := tools.Args{}
		for key, val := range good {
			a[key] = val
		}
		if v == nil {
			delete(a, k)
		} else {
			a[k] = v
		}
		return a
	}
	tests := []struct {
		name string
		args tools.Args
		want string
	}{
		{name: "no file", args: with("file", nil), want: `finding: argument "file" is required`},
		{name: "a file outside the repository", args: with("file", "../etc/passwd"), want: `argument "file" must be a file's path from the repository's top, like calc/calc.go; "../etc/passwd" is not a clean path`},
		{name: "a blank claim", args: with("claim", "  "), want: `finding: argument "claim" must not be empty`},
		{name: "a long claim", args: with("claim", strings.Repeat("x", maxClaim+1)), want: `argument "claim" is 4097 bytes`},
		{name: "no line", args: with("line", nil), want: `argument "line" is required: the line of file`},
		{name: "a line that is no number", args: with("line", "three"), want: `argument "line" must be an integer`},
		{name: "a reproduction without its command", args: with("command", nil), want: `argument "command" is missing: a reproduction needs path, content, command and expect together`},
		{name: "a reproduction without its content", args: with("content", nil), want: `argument "content" is missing`},
		{name: "a blank prediction", args: with("expect", " "), want: `argument "expect" must be the text the failure prints`},
		{name: "a shell command", args: with("command", "go test ./... | tee x"), want: `argument "command" "go test ./... | tee x" is not a plain command`},
		{name: "a number for a path", args: with("path", int64(3)), want: `argument "path" must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := &judged{}
			set, env, recorded := findingSet(t, j.reproduce)
			assert.Contains(t, call(t, set, env, tt.args), tt.want)
			assert.Empty(t, j.asked, "nothing is judged")
			assert.Empty(t, *recorded, "nothing is recorded")
		})
	}
}

// TestFindingToolRecordsAndReplaces: each finding is judged and recorded in
// order; one reported again with the same file, line and claim replaces
// the first in its place, and the observation says so, with each side's
// exit and excerpt; one without a reproduction is recorded unconfirmed.
func TestFindingToolRecordsAndReplaces(t *testing.T) {
	t.Parallel()
	j := &judged{}
	set, env, recorded := findingSet(t, j.reproduce)

	out := call(t, set, env, reproArgs("Add subtracts", "want 5"))
	assert.Contains(t, out, "finding 1 (calc.go:3) recorded: unconfirmed: it failed on the head, but its output does not contain the prediction")
	assert.Contains(t, out, "head: exit 1, failed in 0.0s\n  --- FAIL: TestRepro\n  want 5")
	assert.Contains(t, out, "base: exit 0, passed in 0.0s\n  ok")

	out = call(t, set, env, tools.Args{"file": "calc.go", "line": int64(9), "claim": "Mul overflows"})
	assert.Equal(t, "finding 2 (calc.go:9) recorded: unconfirmed: no reproduction: the finding is only the model's word", out)

	out = call(t, set, env, reproArgs("Add subtracts", "red"))
	assert.Contains(t, out, "finding 1 (calc.go:3) recorded, replacing the earlier one with the same file, line and claim: confirmed")
	require.Len(t, *recorded, 2)
	assert.True(t, (*recorded)[0].Confirmed, "the replacement, in the first's place")
	assert.Equal(t, "Mul overflows", (*recorded)[1].Claim)
	assert.Equal(t, []string{"go", "test", "./calc", "-run", "TestRepro"}, j.asked[0].Reproduction.Command)
}

// TestFindingToolBounds: past MaxFindings a new finding is not recorded
// (a replacement still is); past MaxReproductions a reproduction is not
// run, and a finding without one still is recorded.
func TestFindingToolBounds(t *testing.T) {
	t.Parallel()
	j := &judged{}
	set, env, recorded := findingSet(t, j.reproduce)
	for i := range MaxFindings {
		call(t, set, env, tools.Args{"file": "a.go", "line": int64(i + 1), "claim": "c"})
	}
	out := call(t, set, env, tools.Args{"file": "a.go", "line": int64(99), "claim": "c"})
	assert.Contains(t, out, "finding: not recorded: the review holds 20 findings, the most it takes")
	assert.Len(t, *recorded, MaxFindings)
	for range MaxReproductions {
		call(t, set, env, tools.Args{"file": "a.go", "line": int64(1), "claim": "c", "path": "x_test.go", "content": "x", "command": "go test .", "expect": "red"})
	}
	out = call(t, set, env, tools.Args{"file": "a.go", "line": int64(1), "claim": "c", "path": "x_test.go", "content": "x", "command": "go test .", "expect": "red"})
	assert.Contains(t, out, "the harness has run 30 reproductions, the most a review runs")
	assert.Len(t, j.asked, MaxFindings+MaxReproductions, "the last was not run")
	out = call(t, set, env, tools.Args{"file": "a.go", "line": int64(2), "claim": "c"})
	assert.Contains(t, out, "finding 2 (a.go:2) recorded, replacing")
}

// TestFindingToolInfrastructure: the harness's own failure is a Go error,
// which ends the run, not an observation; nothing is recorded.
func TestFindingToolInfrastructure(t *testing.T) {
	t.Parallel()
	set, env, recorded := findingSet(t, func(context.Context, Finding) (Finding, error) {
		return Finding{}, errors.New("disk full")
	})
	_, err := set.Run(t.Context(), env, tools.Call{Tool: FindingName, Args: reproArgs("c", "red")})
	assert.ErrorContains(t, err, "reproduce the finding at calc.go:3: disk full")
	assert.Empty(t, *recorded)
}

// TestFindingToolSchema: the native schema, from the doc, requires file,
// line and claim, and not the reproduction's four.
func TestFindingToolSchema(t *testing.T) {
	t.Parallel()
	tool := FindingTool(nil, nil)
	got := protocol.Tools([]protocol.ToolDoc{{Name: tool.Name(), Doc: tool.Doc()}})
	require.Len(t, got, 1)
	params := string(got[0].Parameters)
	assert.Contains(t, params, `"required":["file","line","claim"]`)
	assert.Contains(t, params, `"line":{"type":"integer"}`)
	for _, arg := range []string{"path", "content", "command", "expect"} {
		assert.Contains(t, params, fmt.Sprintf("%q:{\"type\":\"string\"}", arg))
	}
	_, err := lang.SplitCommand("go test ./calc -run TestAddRepro")
	assert.NoError(t, err, "the doc's command is one the tool takes")
}
