package protocol

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/coreagent/core/session/model"
)

// FuzzParseMarkup writes a value into the tool-call form as the prompt
// shows it and parses it back: any text that holds no opening tag comes
// back exactly, closing tags, quotes, backslashes and tabs included.
func FuzzParseMarkup(f *testing.F) {
	for _, s := range []string{
		"main.go",
		"line 1\n\tline \"2\" \\ </parameter>\n",
		"</function></tool_call>",
		"\n\nblank lines around\n\n",
		"\r\nCRLF\r\n",
		"",
	} {
		f.Add(s, "write_file")
	}
	f.Fuzz(func(t *testing.T, value, tool string) {
		if strings.Contains(value, paramOpen) || strings.Contains(value, functionOpen) || strings.Contains(value, toolCallOpen) {
			return // an opening tag inside a value is the one ambiguity the form has
		}
		reply := "<tool_call>\n<function=write_file>\n<parameter=content>\n" + value + "\n</parameter>\n<parameter=path>\na.txt\n</parameter>\n</function>\n</tool_call>"
		a, err := Parse(reply, known)
		if err != nil {
			t.Fatalf("reply %q: %v", reply, err)
		}
		if a.Tool != "write_file" || a.Args["content"] != value || a.Args["path"] != "a.txt" {
			t.Fatalf("reply %q parsed to %+v, want content %q", reply, a, value)
		}
		// Arbitrary markup must not panic, and fails only as malformed.
		b, err := Parse("<tool_call>\n<function="+tool+">\n"+value, known)
		if err != nil {
			var m *MalformedError
			if !errors.As(err, &m) {
				t.Fatalf("error is not a *MalformedError: %T %v", err, err)
			}
		} else if b.Tool != strings.TrimSpace(tool) {
			t.Fatalf("markup for %q parsed to tool %q", tool, b.Tool)
		}
	})
}

// FuzzParseCalls feeds native tool calls with arbitrary arguments: a JSON
// object comes back as the arguments, anything else is a malformed reply.
func FuzzParseCalls(f *testing.F) {
	for _, s := range []string{`{"path":"a"}`, `{}`, ``, `[1]`, `"x"`, `{"a":{"b":[1,2]}}`, `{"path":`} {
		f.Add("read_file", s)
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		a, err := ParseCalls([]model.ToolCall{{ID: "id", Name: name, Arguments: args}}, known)
		if err != nil {
			var m *MalformedError
			if !errors.As(err, &m) {
				t.Fatalf("error is not a *MalformedError: %T %v", err, err)
			}
			return
		}
		if a.Tool != name || a.CallID != "id" {
			t.Fatalf("got %+v for %q", a, name)
		}
		if strings.TrimSpace(args) != "" {
			var obj map[string]any
			if err := json.Unmarshal([]byte(args), &obj); err != nil {
				t.Fatalf("accepted arguments %q that are not a JSON object", args)
			}
			if len(obj) != len(a.Args) {
				t.Fatalf("arguments %q gave %d members, want %d", args, len(a.Args), len(obj))
			}
		}
	})
}
