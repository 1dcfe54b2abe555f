package protocol

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/toon"
)

// ParseCalls turns the native tool calls of a reply into one action: the
// first call, with Skipped counting the others. The action keeps the
// call's id, so its observation can answer it.
func ParseCalls(calls []model.ToolCall, known []string) (Action, error) {
	if len(calls) == 0 {
		return Action{}, withExample(malformed("the reply has no tool call."), "")
	}
	c := calls[0]
	args, err := argsValue(c.Name, c.Arguments)
	if err != nil {
		return Action{CallID: c.ID}, withExample(err, c.Name)
	}
	a, err := action(c.Name, args, known)
	a.CallID = c.ID
	if err != nil {
		return a, withExample(err, "")
	}
	a.Skipped = len(calls) - 1
	return a, nil
}

func withExample(err error, tool string) error {
	if m, ok := err.(*MalformedError); ok && m.Example == "" {
		m.Example = Example(tool)
	}
	return err
}

// RenderCalls writes native tool calls as the Hermes text form, for a
// transcript that has no place for them (text mode): parsing the text
// gives the same action.
func RenderCalls(calls []model.ToolCall) string {
	var b strings.Builder
	for _, c := range calls {
		args := strings.TrimSpace(c.Arguments)
		if args == "" {
			args = "{}"
		}
		name, _ := json.Marshal(c.Name)
		fmt.Fprintf(&b, "<tool_call>\n{\"name\": %s, \"arguments\": %s}\n</tool_call>\n", name, args)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ToolDoc is one tool's entry in the system prompt, as the tool set
// documents it: a first line "name: what it does", an indented TOON
// example, and prose.
type ToolDoc struct {
	Name string
	Doc  string
	// Schema, when set, is the tool's own JSON Schema of its arguments
	// (an MCP server's tool gives one): the function definition carries
	// it as it is, instead of the one derived from the doc.
	Schema json.RawMessage
}

var optionalArgs = regexp.MustCompile(`(\w+)(?:(?:, | and | or )(\w+))*(?:, and (\w+))? (?:is|are) optional`)

// Tools turns tool docs into OpenAI function definitions. The parameters
// come from the doc's example: each argument becomes a property, an
// integer when the example gives a number and a string otherwise; the
// arguments the prose calls optional are not required; a doc with its own
// Schema gives that instead. The description is the doc without its
// example.
func Tools(docs []ToolDoc) []model.Tool {
	out := make([]model.Tool, 0, len(docs))
	for _, d := range docs {
		out = append(out, toolFor(d))
	}
	return out
}

type schemaProp struct {
	Type string `json:"type"`
}

type schema struct {
	Type       string                `json:"type"`
	Properties map[string]schemaProp `json:"properties"`
	Required   []string              `json:"required,omitempty"`
}

func toolFor(d ToolDoc) model.Tool {
	var example, prose []string
	for _, line := range strings.Split(strings.TrimSpace(d.Doc), "\n") {
		if strings.HasPrefix(line, "  ") {
			example = append(example, strings.TrimPrefix(line, "  "))
		} else {
			prose = append(prose, line)
		}
	}
	desc := strings.Join(prose, "\n")
	desc = strings.TrimSpace(strings.TrimPrefix(desc, d.Name+":"))
	optional := map[string]bool{}
	for _, m := range optionalArgs.FindAllStringSubmatch(desc, -1) {
		for _, g := range m[1:] {
			optional[g] = g != ""
		}
	}
	if len(d.Schema) > 0 {
		return model.Tool{Name: d.Name, Description: desc, Parameters: d.Schema}
	}
	sc := schema{Type: "object", Properties: map[string]schemaProp{}}
	if v, err := toon.Decode([]byte(strings.Join(example, "\n"))); err == nil {
		if obj, ok := v.(toon.Object); ok {
			for _, m := range obj {
				if m.Key == "tool" {
					continue
				}
				typ := "string"
				switch m.Value.(type) {
				case int64, float64, toon.Number:
					typ = "integer"
				case bool:
					typ = "boolean"
				}
				sc.Properties[m.Key] = schemaProp{Type: typ}
				if !optional[m.Key] {
					sc.Required = append(sc.Required, m.Key)
				}
			}
		}
	}
	params, _ := json.Marshal(sc) // plain structs always marshal
	return model.Tool{Name: d.Name, Description: desc, Parameters: params}
}
