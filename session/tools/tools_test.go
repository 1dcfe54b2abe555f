package tools

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coreagent/core/toon"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultSet(t *testing.T) {
	t.Parallel()
	s := Default()
	want := []string{"read_file", "list_dir", "write_file", "edit_file", "search", "git_diff", "run_shell", "file_issue", "done"}
	assert.Equal(t, want, s.Names())
	doc := s.Doc()
	last := -1
	for _, name := range want {
		tool, ok := s.Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, name, tool.Name())
		assert.Contains(t, tool.Doc(), "tool: "+name, "a tool's doc shows a TOON example naming it")
		at := strings.Index(doc, name+":")
		assert.Greater(t, at, last, "%s's doc comes in order", name)
		last = at
	}
	_, ok := s.Lookup("rm")
	assert.False(t, ok)
}

func TestDocExamplesAreValidTOON(t *testing.T) {
	t.Parallel()
	for _, name := range Default().Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tool, _ := Default().Lookup(name)
			var example []string
			for _, line := range strings.Split(tool.Doc(), "\n") {
				if rest, ok := strings.CutPrefix(line, "  "); ok {
					example = append(example, rest)
				}
			}
			require.NotEmpty(t, example)
			v, err := toon.Decode([]byte(strings.Join(example, "\n")))
			require.NoError(t, err, "example:\n%s", strings.Join(example, "\n"))
			obj, ok := v.(toon.Object)
			require.True(t, ok)
			got, _ := obj.Get("tool")
			assert.Equal(t, name, got)
		})
	}
}

// stubTool answers every call with a fixed result and error.
type stubTool struct {
	name   string
	result Result
	err    error
}

func (s stubTool) Name() string { return s.name }
func (s stubTool) Doc() string  { return s.name + ": a stub" }
func (s stubTool) Run(context.Context, *Env, Args) (Result, error) {
	return s.result, s.err
}

func TestNewSetReplacesDuplicates(t *testing.T) {
	t.Parallel()
	s := NewSet(stubTool{name: "a", result: Result{Output: "first"}}, stubTool{name: "b"}, stubTool{name: "a", result: Result{Output: "second"}})
	assert.Equal(t, []string{"a", "b"}, s.Names())
	r, err := s.Run(t.Context(), newEnv(t, nil), Call{Tool: "a"})
	require.NoError(t, err)
	assert.Equal(t, "second", r.Output)
}

func TestSetRun(t *testing.T) {
	t.Parallel()
	disk := errors.New("input/output error")
	set := NewSet(
		stubTool{name: "long", result: Result{Output: strings.Repeat("x", 5000), Target: "t"}},
		stubTool{name: "broken", err: disk},
		stubTool{name: "badarg", err: &ArgError{Arg: "n", Msg: "must be an integer"}},
		readFile{},
		done{},
	)
	tests := []struct {
		name       string
		call       Call
		limit      int
		wantOutput string // the whole output, when set
		contains   string // part of the output, when set
		wantErr    error
		maxLen     int
	}{
		{name: "unknown tool", call: Call{Tool: "rm_rf"}, contains: `unknown tool "rm_rf": the tools are long, broken, badarg, read_file, done`},
		{name: "missing argument", call: Call{Tool: "read_file", Args: Args{}}, wantOutput: `read_file: argument "path" is required (a string)`},
		{name: "argument of the wrong type", call: Call{Tool: "read_file", Args: Args{"path": int64(5)}}, wantOutput: `read_file: argument "path" must be a string, got the number 5 (quote it)`},
		{name: "tool's ArgError gets the tool's name", call: Call{Tool: "badarg"}, wantOutput: `badarg: argument "n" must be an integer`},
		{name: "infrastructure error", call: Call{Tool: "broken"}, wantErr: disk},
		{name: "output capped", call: Call{Tool: "long"}, limit: 1000, contains: "bytes cut", maxLen: 1000},
		{name: "default cap leaves short output", call: Call{Tool: "long"}, wantOutput: strings.Repeat("x", 5000)},
		{name: "done", call: Call{Tool: "done", Args: Args{"summary": "fixed it"}}, wantOutput: "done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, nil)
			env.OutputLimit = tt.limit
			r, err := set.Run(t.Context(), env, tt.call)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), tt.call.Tool)
				return
			}
			require.NoError(t, err)
			if tt.wantOutput != "" {
				assert.Equal(t, tt.wantOutput, r.Output)
			}
			assert.Contains(t, r.Output, tt.contains)
			if tt.maxLen > 0 {
				assert.LessOrEqual(t, len(r.Output), tt.maxLen)
			}
		})
	}
}

func TestSetRunCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Default().Run(ctx, newEnv(t, map[string]string{"a": "x"}), Call{Tool: "read_file", Args: Args{"path": "a"}})
	require.ErrorIs(t, err, context.Canceled)
}

func TestSetRunNoWorkspace(t *testing.T) {
	t.Parallel()
	_, err := Default().Run(t.Context(), &Env{}, Call{Tool: "done", Args: Args{"summary": "x"}})
	require.Error(t, err)
}

// TestResultFailed: a call that did not do what was asked says why in
// Failed, for the run's event log, without the file's content; one that
// did leaves it empty.
func TestResultFailed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  *Set
		call Call
		want string
	}{
		{name: "read", set: Default(), call: Call{Tool: "read_file", Args: Args{"path": "a.txt"}}},
		{name: "unknown tool", set: Default(), call: Call{Tool: "rm_rf"}, want: "unknown tool"},
		{name: "bad argument", set: Default(), call: Call{Tool: "read_file", Args: Args{}}, want: `read_file: argument "path" is required (a string)`},
		{name: "path outside", set: Default(), call: Call{Tool: "read_file", Args: Args{"path": "../x"}}, want: `path "../x" refused: it leaves the workspace`},
		{name: "withheld", set: Default().Without("a review does not write", "write_file"), call: Call{Tool: "write_file", Args: Args{"path": "a.txt", "content": "b"}}, want: "a review does not write"},
		{name: "declined", set: Default(), call: Call{Tool: "run_shell", Args: Args{"command": "ls"}}, want: Declined},
		{name: "refused", set: Default(), call: Call{Tool: "run_shell", Args: Args{"command": "sudo ls"}}, want: "refused: it runs a command as root"},
		{name: "issue declined", set: Default(), call: Call{Tool: "file_issue", Args: Args{"title": "t", "body": "b"}}, want: DeclinedIssue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, map[string]string{"a.txt": "the file's secret content\n"})
			env.Runner, env.Issues = &fakeRunner{}, &recordingFiler{}
			r, err := tt.set.Run(t.Context(), env, tt.call)
			require.NoError(t, err)
			if tt.want == "" {
				assert.Empty(t, r.Failed)
				return
			}
			assert.Contains(t, r.Failed, tt.want)
			assert.NotContains(t, r.Failed, "secret content")
		})
	}
}
