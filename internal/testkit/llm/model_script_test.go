package llm

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func TestParseScript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   []Reply
	}{
		{name: "empty", script: "", want: nil},
		{name: "only comments", script: "# nothing scripted\n\n# really\n", want: nil},
		{
			name:   "one reply",
			script: "# read then done\n>>> reply\ntool: read_file\npath: go.mod\n",
			want:   []Reply{{Content: "tool: read_file\npath: go.mod"}},
		},
		{
			name:   "reply without final newline",
			script: ">>> reply\ntool: done",
			want:   []Reply{{Content: "tool: done"}},
		},
		{
			name:   "only one trailing newline is trimmed",
			script: ">>> reply\nline\n\n>>> reply\n\n>>> reply\n\n\n",
			want:   []Reply{{Content: "line\n"}, {Content: ""}, {Content: "\n"}},
		},
		{
			name:   "empty reply",
			script: ">>> reply\n>>> reply\nx\n",
			want:   []Reply{{Content: ""}, {Content: "x"}},
		},
		{
			name:   "lines starting with # inside a reply are content",
			script: ">>> reply\n# heading\ntool: done\n",
			want:   []Reply{{Content: "# heading\ntool: done"}},
		},
		{
			name:   "tool calls",
			script: ">>> tool_call read_file\n{\"path\": \"go.mod\"}\n>>> tool_call git_diff\n",
			want: []Reply{
				{ToolCalls: []ToolCall{{Name: "read_file", Arguments: `{"path": "go.mod"}`}}},
				{ToolCalls: []ToolCall{{Name: "git_diff", Arguments: "{}"}}},
			},
		},
		{
			name:   "status with and without message",
			script: ">>> status 503\n  Loading model  \n>>> status 429\n",
			want:   []Reply{{Status: 503, Error: "Loading model"}, {Status: 429}},
		},
		{
			name:   "raw bodies",
			script: ">>> raw\n{\"choices\": [\n>>> raw 502\n<html>Bad Gateway</html>\n>>> raw\n",
			want: []Reply{
				{Raw: []byte(`{"choices": [`)},
				{Status: 502, Raw: []byte("<html>Bad Gateway</html>")},
				{Raw: []byte{}},
			},
		},
		{
			name: "modifiers apply to the next reply only",
			script: ">>> delay 2s\n\n>>> usage 120 30\n>>> header Retry-After: 1\n>>> header X-Test: a:b\n>>> status 429\n" +
				">>> reply\nplain\n",
			want: []Reply{
				{Status: 429, Delay: 2 * time.Second, Usage: &Usage{PromptTokens: 120, CompletionTokens: 30},
					Header: http.Header{"Retry-After": {"1"}, "X-Test": {"a:b"}}},
				{Content: "plain"},
			},
		},
		{
			name:   "windows line endings",
			script: "# c\r\n>>> delay 10ms\r\n>>> reply\r\nx\r\ny\r\n",
			want:   []Reply{{Content: "x\ny", Delay: 10 * time.Millisecond}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseScript(tt.script)
			if err != nil {
				t.Fatalf("ParseScript: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseScript =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestParseScriptErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   string
	}{
		{name: "text before first directive", script: "# ok\nhello\n>>> reply\n", want: `line 2: "hello" comes before the first ">>> " directive`},
		{name: "unknown directive", script: ">>> reply\nx\n>>> rpely\n", want: `line 3: unknown directive "rpely"`},
		{name: "no space after prefix", script: ">>>reply\n", want: "line 1: a directive is"},
		{name: "no name", script: ">>> \n", want: "line 1: directive has no name"},
		{name: "tool_call without name", script: ">>> tool_call\n{}\n", want: `line 1: want ">>> tool_call NAME"`},
		{name: "tool_call arguments not an object", script: ">>> tool_call read_file\n[1]\n", want: "line 2: the arguments of >>> tool_call read_file (line 1) are not a JSON object"},
		{name: "reply with argument", script: ">>> reply now\n", want: "line 1: >>> reply takes no arguments"},
		{name: "status missing", script: ">>> status\n", want: `line 1: want ">>> status CODE"`},
		{name: "status not an error", script: ">>> status 200\n", want: `line 1: status "200" is not an HTTP status from 400 to 599`},
		{name: "status not a number", script: ">>> status soon\n", want: `line 1: status "soon"`},
		{name: "raw bad status", script: ">>> raw 999\n", want: `line 1: status "999"`},
		{name: "bad delay", script: ">>> delay forever\n>>> reply\n", want: `line 1: delay "forever"`},
		{name: "negative delay", script: ">>> delay -1s\n>>> reply\n", want: `line 1: delay "-1s"`},
		{name: "second delay", script: ">>> delay 1s\n>>> delay 2s\n>>> reply\n", want: "line 2: second >>> delay for one reply (the first is on line 1)"},
		{name: "bad usage", script: ">>> usage 12\n>>> reply\n", want: `line 1: want ">>> usage PROMPT COMPLETION"`},
		{name: "negative usage", script: ">>> usage 12 -3\n>>> reply\n", want: "line 1: usage wants two non-negative token counts"},
		{name: "bad header", script: ">>> header Retry-After 1\n>>> reply\n", want: `line 1: want ">>> header Name: value"`},
		{name: "content under a modifier", script: ">>> reply\nx\n>>> delay 1s\n\ntool: done\n>>> reply\n", want: "line 5: >>> delay (line 3) takes no content lines"},
		{name: "dangling delay", script: ">>> reply\nx\n>>> delay 1s\n", want: "line 3: >>> delay is not followed by a reply"},
		{name: "dangling usage", script: ">>> usage 1 2\n", want: "line 1: >>> usage is not followed by a reply"},
		{name: "dangling header", script: ">>> reply\n>>> header A: b\n", want: "line 2: >>> header is not followed by a reply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseScript(tt.script)
			if err == nil {
				t.Fatalf("ParseScript = %#v, want an error containing %q", got, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "model script line ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestParseScriptServed runs a parsed script through the server and the real
// client, so the directives mean on the wire what the doc says.
func TestParseScriptServed(t *testing.T) {
	t.Parallel()
	replies, err := ParseScript(`# a session in four answers
>>> header Retry-After: 3
>>> status 429
slow down
>>> delay 100ms
>>> usage 120 30
>>> reply
tool: read_file
path: go.mod
>>> raw
not json
>>> reply
tool: done
`)
	if err != nil {
		t.Fatalf("ParseScript: %v", err)
	}
	s := NewModelServer(t, replies...)
	client := openaiClient(s, "")

	_, err = client.CreateChatCompletion(t.Context(), chatRequest("1"))
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 429 || apiErr.Message != "slow down" {
		t.Fatalf("answer 1: %v, want 429 slow down", err)
	}

	start := time.Now()
	resp, err := client.CreateChatCompletion(t.Context(), chatRequest("2"))
	if err != nil {
		t.Fatalf("answer 2: %v", err)
	}
	if time.Since(start) < 100*time.Millisecond {
		t.Errorf("answer 2 came before its 100ms delay")
	}
	if resp.Choices[0].Message.Content != "tool: read_file\npath: go.mod" || resp.Usage.PromptTokens != 120 || resp.Usage.CompletionTokens != 30 {
		t.Errorf("answer 2 = %q usage %+v", resp.Choices[0].Message.Content, resp.Usage)
	}

	if _, err := client.CreateChatCompletion(t.Context(), chatRequest("3")); err == nil {
		t.Error("answer 3 (raw not json) decoded without error")
	}

	resp, err = client.CreateChatCompletion(t.Context(), chatRequest("4"))
	if err != nil || resp.Choices[0].Message.Content != "tool: done" {
		t.Errorf("answer 4 = %+v, %v; want tool: done", resp, err)
	}
	if s.Remaining() != 0 {
		t.Errorf("%d replies left unserved", s.Remaining())
	}
}
