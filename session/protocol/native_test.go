package protocol

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/coreagent/core/session/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		calls   []model.ToolCall
		tool    string
		args    map[string]any
		skipped int
		wantErr string
	}{
		{name: "one call", calls: []model.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go","start_line":2}`}},
			tool: "read_file", args: map[string]any{"path": "a.go", "start_line": int64(2)}},
		{name: "empty arguments", calls: []model.ToolCall{{ID: "c1", Name: "git_diff", Arguments: ""}},
			tool: "git_diff", args: map[string]any{}},
		{name: "two calls", calls: []model.ToolCall{{ID: "c1", Name: "git_diff", Arguments: "{}"}, {ID: "c2", Name: "done", Arguments: `{"summary":"x"}`}},
			tool: "git_diff", args: map[string]any{}, skipped: 1},
		{name: "unknown tool", calls: []model.ToolCall{{ID: "c1", Name: "rm", Arguments: "{}"}}, wantErr: `unknown tool "rm"`},
		{name: "arguments not json", calls: []model.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":`}}, wantErr: "arguments of read_file are not a JSON object"},
		{name: "no calls", wantErr: "no tool call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := ParseCalls(tt.calls, known)
			if tt.wantErr != "" {
				var m *MalformedError
				require.ErrorAs(t, err, &m)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotEmpty(t, m.Example, "the correction shows the expected form")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.tool, a.Tool)
			assert.Equal(t, tt.args, a.Args)
			assert.Equal(t, "c1", a.CallID)
			assert.Equal(t, tt.skipped, a.Skipped)
		})
	}
}

// TestRenderCalls: native calls written as text parse to the same action.
func TestRenderCalls(t *testing.T) {
	t.Parallel()
	calls := []model.ToolCall{
		{ID: "a", Name: "write_file", Arguments: `{"path":"x.go","content":"a\n\t\"b\" \\ </parameter>\n"}`},
		{ID: "b", Name: "git_diff"},
	}
	text := RenderCalls(calls)
	a, err := Parse(text, known)
	require.NoError(t, err, text)
	assert.Equal(t, "write_file", a.Tool)
	assert.Equal(t, map[string]any{"path": "x.go", "content": "a\n\t\"b\" \\ </parameter>\n"}, a.Args)
	assert.Equal(t, 1, a.Skipped)
}

func TestTools(t *testing.T) {
	t.Parallel()
	docs := []ToolDoc{
		{Name: "read_file", Doc: "read_file: read a text file.\n  tool: read_file\n  path: a.go\n  start_line: 1\n  end_line: 80\nstart_line and end_line are optional, 1-based."},
		{Name: "list_dir", Doc: "list_dir: list a directory.\n  tool: list_dir\n  path: cmd\npath is optional (default: the root)."},
		{Name: "git_diff", Doc: "git_diff: show the diff.\n  tool: git_diff\nIt takes no arguments."},
	}
	tools := Tools(docs)
	require.Len(t, tools, 3)
	assert.Equal(t, "read_file", tools[0].Name)
	assert.Equal(t, "read a text file.\nstart_line and end_line are optional, 1-based.", tools[0].Description)
	want := []string{
		`{"type":"object","properties":{"end_line":{"type":"integer"},"path":{"type":"string"},"start_line":{"type":"integer"}},"required":["path"]}`,
		`{"type":"object","properties":{"path":{"type":"string"}}}`,
		`{"type":"object","properties":{}}`,
	}
	for i, w := range want {
		assert.JSONEq(t, w, string(tools[i].Parameters), tools[i].Name)
		assert.True(t, json.Valid(tools[i].Parameters))
	}
}

// A tool with its own schema (an MCP server's) is offered with it, as it
// is; its description is still the doc without the example.
func TestToolsOwnSchema(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string","enum":["a","b"]}},"required":["topic"]}`)
	got := Tools([]ToolDoc{{Name: "mcp__docs__docs", Doc: "mcp__docs__docs: look up the docs.\n  tool: mcp__docs__docs\n  topic: text\nA tool of the MCP server \"docs\".", Schema: schema}})
	require.Len(t, got, 1)
	assert.JSONEq(t, string(schema), string(got[0].Parameters))
	assert.Equal(t, "look up the docs.\nA tool of the MCP server \"docs\".", got[0].Description)
}

func TestMalformedShowsExample(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reply, want string
	}{
		{"guesses the tool mentioned", "I will now use write_file to create the file.", "<tool_call>\n<function=write_file>"},
		{"first mentioned wins", "edit_file, or maybe read_file?", "<tool_call>\n<function=edit_file>"},
		{"no tool mentioned", "hmm.", "tool: read_file\npath: cmd/app/main.go"},
		{"broken toon for done", "tool: done\nsummary: \"unterminated", "tool: done\nsummary:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.reply, known)
			require.Error(t, err)
			c := Correction(err)
			assert.True(t, strings.HasPrefix(c, "Your reply held no valid action: "), c)
			assert.Contains(t, c, "For example:\n\n"+tt.want)
		})
	}
	assert.Equal(t, "Your reply held no valid action: boom Reply with exactly one action.", Correction(errors.New("boom")))
}

func TestSkippedNote(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Note: your reply held 3 actions; only the first (read_file) was run. One action runs per turn: send the next one after you see this result.",
		SkippedNote(Action{Tool: "read_file", Skipped: 2}))
}
