package protocol

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var known = []string{"read_file", "list_dir", "write_file", "edit_file", "search", "git_diff", "run_shell", "done"}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   string
		tool    string
		args    map[string]any
		skipped int
		wantErr string
	}{
		{name: "plain toon", reply: "tool: read_file\npath: cmd/core/main.go",
			tool: "read_file", args: map[string]any{"path": "cmd/core/main.go"}},
		{name: "integers", reply: "tool: read_file\npath: a.go\nstart_line: 10\nend_line: 20",
			tool: "read_file", args: map[string]any{"path": "a.go", "start_line": int64(10), "end_line": int64(20)}},
		{name: "quoted multi-line content", reply: "tool: write_file\npath: a.txt\ncontent: \"line 1\\nline \\\"2\\\"\\n\"",
			tool: "write_file", args: map[string]any{"path": "a.txt", "content": "line 1\nline \"2\"\n"}},
		{name: "no arguments", reply: "tool: git_diff", tool: "git_diff", args: map[string]any{}},
		{name: "think block", reply: "<think>I should read\nthe file first.</think>\ntool: list_dir\npath: .",
			tool: "list_dir", args: map[string]any{"path": "."}},
		{name: "stray closing think", reply: "reasoning without an opening tag</think>\n\ntool: git_diff",
			tool: "git_diff", args: map[string]any{}},
		{name: "unclosed think hides all", reply: "<think>tool: done\nsummary: x", wantErr: "empty"},
		{name: "toon fence", reply: "```toon\ntool: search\npattern: func main\n```",
			tool: "search", args: map[string]any{"pattern": "func main"}},
		{name: "fence without language", reply: "Here:\n```\ntool: done\nsummary: fixed it\n```\nThanks.",
			tool: "done", args: map[string]any{"summary": "fixed it"}},
		{name: "prose before and after", reply: "I will look at the directory.\n\ntool: list_dir\npath: sandbox\n\nThis shows the files.",
			tool: "list_dir", args: map[string]any{"path": "sandbox"}},
		{name: "json", reply: `{"tool": "read_file", "path": "go.mod"}`,
			tool: "read_file", args: map[string]any{"path": "go.mod"}},
		{name: "json in fence", reply: "```json\n{\"tool\": \"run_shell\", \"command\": \"go test ./...\"}\n```",
			tool: "run_shell", args: map[string]any{"command": "go test ./..."}},
		{name: "json with prose", reply: "Sure: {\"tool\": \"done\", \"summary\": \"ok\"} done.",
			tool: "done", args: map[string]any{"summary": "ok"}},
		{name: "json number", reply: `{"tool": "read_file", "path": "a", "start_line": 3}`,
			tool: "read_file", args: map[string]any{"path": "a", "start_line": int64(3)}},
		{name: "nested arguments", reply: "tool: search\npattern: x\nopts:\n  case: false",
			tool: "search", args: map[string]any{"pattern": "x", "opts": map[string]any{"case": false}}},
		{name: "empty", reply: "  \n ", wantErr: "the reply is empty"},
		{name: "prose only", reply: "I think the bug is in main.go.", wantErr: "not an action"},
		{name: "unknown tool", reply: "tool: delete_everything\npath: .", wantErr: `unknown tool "delete_everything": the tools are read_file`},
		{name: "no tool field", reply: "path: main.go\nstart_line: 1", wantErr: "no tool field (its fields: path, start_line)"},
		{name: "tool not a string", reply: "tool: 5", wantErr: "must be a tool name"},
		{name: "two actions", reply: "tool: read_file\npath: a\ntool: read_file\npath: b",
			tool: "read_file", args: map[string]any{"path": "a"}, skipped: 1},
		{name: "toon comments", reply: "# I will read the file\ntool: read_file\n  # not indented wrongly\npath: a.go",
			tool: "read_file", args: map[string]any{"path": "a.go"}},
		{name: "toon wrapped arguments", reply: "tool: read_file\narguments:\n  path: a.go",
			tool: "read_file", args: map[string]any{"path": "a.go"}},
		{name: "qwen xml", reply: "<tool_call>\n<function=read_file>\n<parameter=path>\nmain.go\n</parameter>\n</function>\n</tool_call>",
			tool: "read_file", args: map[string]any{"path": "main.go"}},
		{name: "qwen xml on one line", reply: "<tool_call><function=read_file><parameter=path>main.go</parameter></function></tool_call>",
			tool: "read_file", args: map[string]any{"path": "main.go"}},
		{name: "qwen xml keeps inner newlines", reply: "<function=write_file>\n<parameter=path>\na\n</parameter>\n<parameter=content>\n\nx\n\n</parameter>\n</function>",
			tool: "write_file", args: map[string]any{"path": "a", "content": "\nx\n"}},
		{name: "qwen xml closing tags inside a value", reply: "<function=write_file><parameter=content>\na </parameter> b </function>\n</parameter><parameter=path>\nx\n</parameter></function>",
			tool: "write_file", args: map[string]any{"path": "x", "content": "a </parameter> b </function>"}},
		{name: "qwen xml without closing tags", reply: "<tool_call>\n<function=read_file>\n<parameter=path>\nmain.go\n",
			tool: "read_file", args: map[string]any{"path": "main.go"}},
		{name: "qwen xml two calls", reply: "<function=list_dir>\n</function>\n<function=git_diff>\n</function>",
			tool: "list_dir", args: map[string]any{}, skipped: 1},
		{name: "qwen xml unknown tool", reply: "<function=rm_rf>\n</function>", wantErr: `unknown tool "rm_rf"`},
		{name: "qwen xml unclosed function tag", reply: "<function=read_file\n<parameter=path>\na\n</parameter>", wantErr: "<function=NAME> tag is not closed"},
		{name: "qwen xml duplicate parameter", reply: "<function=read_file><parameter=path>a</parameter><parameter=path>b</parameter></function>", wantErr: "given twice"},
		{name: "hermes", reply: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call>",
			tool: "read_file", args: map[string]any{"path": "main.go"}},
		{name: "hermes two calls", reply: "<tool_call>{\"name\": \"git_diff\"}</tool_call>\n<tool_call>{\"name\": \"done\", \"arguments\": {\"summary\": \"x\"}}</tool_call>",
			tool: "git_diff", args: map[string]any{}, skipped: 1},
		{name: "hermes bad arguments", reply: "<tool_call>{\"name\": \"read_file\", \"arguments\": \"{not json\"}</tool_call>", wantErr: "arguments of read_file are not a JSON object"},
		{name: "empty tool_call", reply: "<tool_call>\n</tool_call>", wantErr: "holds no call"},
		{name: "name and arguments string", reply: `{"name": "read_file", "arguments": "{\"path\": \"a\"}"}`,
			tool: "read_file", args: map[string]any{"path": "a"}},
		{name: "tool and arguments object", reply: `{"tool": "read_file", "arguments": {"path": "a"}}`,
			tool: "read_file", args: map[string]any{"path": "a"}},
		{name: "tool and arguments string", reply: `{"tool": "read_file", "arguments": "{\"path\": \"a\"}"}`,
			tool: "read_file", args: map[string]any{"path": "a"}},
		{name: "markup mentioned in prose", reply: "No <tool_call> tags needed:\ntool: read_file\npath: a",
			tool: "read_file", args: map[string]any{"path": "a"}},
		{name: "broken markup and no other action", reply: "<tool_call>\n</tool_call>\nthat is all", wantErr: "holds no call"},
		{name: "openai tool call object", reply: `{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}`,
			tool: "read_file", args: map[string]any{"path": "a"}},
		{name: "json array", reply: `[{"tool": "git_diff"}, {"tool": "done", "summary": "x"}]`,
			tool: "git_diff", args: map[string]any{}, skipped: 1},
		{name: "two json objects", reply: "{\"tool\": \"git_diff\"}\n{\"tool\": \"done\", \"summary\": \"x\"}",
			tool: "git_diff", args: map[string]any{}, skipped: 1},
		{name: "two fences", reply: "```\ntool: git_diff\n```\nthen\n```\ntool: done\nsummary: x\n```",
			tool: "git_diff", args: map[string]any{}, skipped: 1},
		{name: "name not a string", reply: `{"name": 3, "arguments": {}}`, wantErr: "name field must be a tool name"},
		{name: "broken quoting", reply: "tool: write_file\npath: a\ncontent: \"unterminated", wantErr: "line 3"},
		{name: "primitive", reply: "42", wantErr: "not an action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := Parse(tt.reply, known)
			if tt.wantErr != "" {
				require.Error(t, err)
				var m *MalformedError
				require.ErrorAs(t, err, &m)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.tool, a.Tool)
			assert.Equal(t, tt.args, a.Args)
			assert.Equal(t, tt.skipped, a.Skipped)
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"tool: read_file\npath: a.go",
		"<think>x</think>tool: done\nsummary: ok",
		"```toon\ntool: list_dir\npath: .\n```",
		`{"tool":"done","summary":"x"}`,
		"tool: write_file\npath: a\ncontent: \"a\\nb\"",
		"tool: search\npattern: x\nitems[2]{a,b}:\n  1,2\n  3,4",
		"# comment\ntool: git_diff",
		"<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>",
		"<tool_call>{\"name\": \"done\", \"arguments\": \"{\\\"summary\\\": \\\"x\\\"}\"}</tool_call>",
		`[{"tool":"git_diff"},{"name":"done","arguments":{}}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		a, err := Parse(reply, known)
		if err != nil {
			var m *MalformedError
			if !errors.As(err, &m) {
				t.Fatalf("error is not a *MalformedError: %T %v", err, err)
			}
			return
		}
		found := false
		for _, k := range known {
			found = found || k == a.Tool
		}
		if !found {
			t.Fatalf("parsed unknown tool %q", a.Tool)
		}
		if _, ok := a.Args["tool"]; ok {
			t.Fatal("tool leaked into the arguments")
		}
	})
}
