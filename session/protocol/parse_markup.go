package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// The tool-call markup of coder models' chat templates.
const (
	toolCallOpen  = "<tool_call>"
	toolCallClose = "</tool_call>"
	functionOpen  = "<function="
	functionClose = "</function>"
	paramOpen     = "<parameter="
	paramClose    = "</parameter>"
)

// hasMarkup reports whether text holds tool-call markup.
func hasMarkup(text string) bool {
	return strings.Contains(text, functionOpen) || strings.Contains(text, toolCallOpen)
}

// markupCall is one call found in markup: a Qwen3-Coder <function=…>
// block, or the JSON of a Hermes <tool_call>.
type markupCall struct {
	at   int
	xml  bool
	body string // after "<function=" or after "<tool_call>"
}

// parseMarkup reads the calls in text's tool-call markup; the first is
// the action and the others are counted as skipped.
func parseMarkup(text string, known []string) (Action, error) {
	calls := splitMarkup(text)
	if len(calls) == 0 {
		return Action{}, malformed("the <tool_call> holds no call: write <function=NAME> with <parameter=NAME> blocks inside, or a JSON object {\"name\": NAME, \"arguments\": {…}}.")
	}
	var first Action
	var firstErr error
	found := 0
	for _, c := range calls {
		a, err := c.parse(known)
		switch {
		case err != nil && found == 0 && firstErr == nil:
			firstErr = err
		case err == nil && found == 0 && firstErr == nil:
			first = a
			found++
		case err == nil:
			found++
		}
	}
	if firstErr != nil {
		return Action{}, firstErr
	}
	first.Skipped = found - 1
	return first, nil
}

// splitMarkup finds the calls in text, in order. A call runs to the start
// of the next one.
func splitMarkup(text string) []markupCall {
	var calls []markupCall
	for i := 0; ; {
		j := strings.Index(text[i:], functionOpen)
		if j < 0 {
			break
		}
		calls = append(calls, markupCall{at: i + j, xml: true})
		i += j + len(functionOpen)
	}
	for i := 0; ; {
		j := strings.Index(text[i:], toolCallOpen)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(toolCallOpen)
		if strings.HasPrefix(strings.TrimLeft(text[i:], " \t\r\n"), "{") {
			calls = append(calls, markupCall{at: at})
		}
	}
	slices.SortFunc(calls, func(a, b markupCall) int { return a.at - b.at })
	for k := range calls {
		end := len(text)
		if k+1 < len(calls) {
			end = calls[k+1].at
		}
		open := toolCallOpen
		if calls[k].xml {
			open = functionOpen
		}
		calls[k].body = text[calls[k].at+len(open) : end]
	}
	return calls
}

func (c markupCall) parse(known []string) (Action, error) {
	if !c.xml {
		body := c.body
		if k := strings.LastIndex(body, toolCallClose); k >= 0 {
			body = body[:k]
		}
		return parseJSON(body, known)
	}
	name, body, ok := strings.Cut(c.body, ">")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, "\n<") {
		return Action{}, malformed("a <function=NAME> tag is not closed: write <function=read_file> on a line of its own.")
	}
	if k := strings.LastIndex(body, functionClose); k >= 0 {
		body = body[:k]
	} else {
		body = trimClosers(body)
	}
	args := map[string]any{}
	for _, p := range splitParams(body) {
		pname, value, ok := strings.Cut(p, ">")
		pname = strings.TrimSpace(pname)
		if !ok || pname == "" || strings.ContainsAny(pname, "\n<") {
			return Action{}, malformed(fmt.Sprintf("a <parameter=NAME> tag of %s is not closed: write <parameter=path> on a line of its own.", name))
		}
		if k := strings.LastIndex(value, paramClose); k >= 0 {
			value = value[:k]
		} else {
			value = trimClosers(value)
		}
		if _, dup := args[pname]; dup {
			return Action{}, malformed(fmt.Sprintf("the parameter %s of %s is given twice.", pname, name))
		}
		args[pname] = stripOneNewline(value)
	}
	return action(name, args, known)
}

// splitParams returns the text after each "<parameter=" in body.
func splitParams(body string) []string {
	return strings.Split(body, paramOpen)[1:]
}

// trimClosers drops the closing tags (and the blank space around them) a
// call without </function> or a value without </parameter> ends with.
func trimClosers(s string) string {
	const space = " \t\r\n"
	t := strings.TrimRight(s, space)
	trimmed := false
	for {
		u := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(t, toolCallClose), functionClose), space)
		if u == t {
			break
		}
		t, trimmed = u, true
	}
	if !trimmed {
		return s
	}
	return t
}

// stripOneNewline removes one leading and one trailing newline, as
// Qwen3-Coder's chat template writes them around a value.
func stripOneNewline(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(s, "\n"), "\n")
}
