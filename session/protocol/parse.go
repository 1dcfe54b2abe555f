// Package protocol is the turn protocol between core and the model: the
// system prompt that describes the tools and the reply format, and the
// parser that turns a reply into one action.
//
// The model has no native tool calling. Each reply is exactly one action,
// written as a TOON object whose tool field names the tool:
//
//	tool: read_file
//	path: cmd/core/main.go
//
// A reply that is not valid TOON is tried as JSON. <think> traces and
// Markdown fences are stripped first, and prose around the action is
// tolerated; inside, the action must be exact TOON (or JSON).
package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/coreagent/core/toon"
)

// Action is one parsed reply: the tool to call and its arguments.
type Action struct {
	Tool string
	Args map[string]any
}

// MalformedError says why a reply held no valid action, in words meant for
// the model: the engine sends Error() back as a correction.
type MalformedError struct {
	Reason string
}

func (e *MalformedError) Error() string { return e.Reason }

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	fence      = regexp.MustCompile("(?s)```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```")
	toolLine   = regexp.MustCompile(`(?m)^"?tool"?[ \t]*:`)
)

// Parse turns a model reply into one action whose tool is among known.
// The error, a *MalformedError, says precisely what was wrong.
func Parse(reply string, known []string) (Action, error) {
	text := stripThink(reply)
	if strings.TrimSpace(text) == "" {
		return Action{}, malformed("the reply is empty (after removing <think> blocks). Reply with exactly one action.")
	}
	var firstErr error
	for _, c := range candidates(text) {
		a, err := parseCandidate(c, known)
		if err == nil {
			return a, nil
		}
		var m *MalformedError
		if errors.As(err, &m) && strings.HasPrefix(m.Reason, "unknown tool") {
			return Action{}, err // the syntax was fine; the name was not
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = malformed("no action found: the reply has no line starting with \"tool:\".")
	}
	return Action{}, firstErr
}

// stripThink removes <think>…</think> blocks, and everything before a stray
// </think> (a trace whose opening tag the server ate).
func stripThink(s string) string {
	s = thinkBlock.ReplaceAllString(s, "")
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	if i := strings.Index(s, "<think>"); i >= 0 {
		s = s[:i] // an unclosed trace runs to the end
	}
	return s
}

// candidates lists the texts that may hold the action, most likely first:
// the contents of each fenced block, then the text from the first tool line,
// then the whole text.
func candidates(text string) []string {
	var out []string
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	if loc := toolLine.FindStringIndex(text); loc != nil {
		out = append(out, text[loc[0]:])
	}
	if i := strings.IndexByte(text, '{'); i >= 0 {
		if j := strings.LastIndexByte(text, '}'); j > i {
			out = append(out, text[i:j+1])
		}
	}
	return append(out, text)
}

// parseCandidate decodes one candidate as TOON, without its trailing prose
// when it has some, then as JSON.
func parseCandidate(c string, known []string) (Action, error) {
	c = strings.TrimSpace(c)
	if strings.HasPrefix(c, "{") {
		return parseJSON(c, known)
	}
	docs := []string{c}
	if trimmed := trimTrailingProse(c); trimmed != c && trimmed != "" {
		docs = append(docs, trimmed)
	}
	var firstErr error
	for _, doc := range docs {
		v, err := toon.Decode([]byte(doc))
		if err != nil {
			if firstErr == nil {
				firstErr = malformed(fmt.Sprintf("the reply is not valid TOON: %v.", err))
			}
			continue
		}
		obj, ok := v.(toon.Object)
		if !ok {
			if firstErr == nil {
				firstErr = malformed("the reply is prose or a single value, not an action: write an object whose first line is \"tool: NAME\".")
			}
			continue
		}
		return fromObject(obj, known)
	}
	if a, err := parseJSON(c, known); err == nil {
		return a, nil
	}
	return Action{}, firstErr
}

// toonLine matches a line that TOON would read as a field or a list item:
// what is not prose.
var toonLine = regexp.MustCompile(`^\s*(- |("(\\.|[^"\\])*"|[A-Za-z_][\w.]*)(\[[^\]]*\])?(\{[^}]*\})?\s*:)`)

// trimTrailingProse drops the trailing lines that are blank or prose (lines
// TOON would not read as a field), so "tool: done … Let me know!" parses.
// Lines that look like fields are never dropped: a broken field is an error
// the model must hear about.
func trimTrailingProse(c string) string {
	lines := strings.Split(c, "\n")
	n := len(lines)
	for n > 0 && (strings.TrimSpace(lines[n-1]) == "" || !toonLine.MatchString(lines[n-1]) && !strings.HasPrefix(lines[n-1], " ")) {
		n--
	}
	return strings.TrimSpace(strings.Join(lines[:n], "\n"))
}

func parseJSON(c string, known []string) (Action, error) {
	var obj toon.Object
	if err := json.Unmarshal([]byte(c), &obj); err != nil {
		return Action{}, malformed(fmt.Sprintf("the reply is neither valid TOON nor a JSON object: %v.", err))
	}
	return fromObject(obj, known)
}

// fromObject checks the tool field and turns the other members into
// arguments.
func fromObject(obj toon.Object, known []string) (Action, error) {
	t, ok := obj.Get("tool")
	if !ok {
		return Action{}, malformed(fmt.Sprintf("the object has no tool field (its fields: %s).", strings.Join(obj.Keys(), ", ")))
	}
	name, ok := t.(string)
	if !ok || name == "" {
		return Action{}, malformed("the tool field must be a tool name (a string).")
	}
	if !slices.Contains(known, name) {
		return Action{}, malformed(fmt.Sprintf("unknown tool %q: the tools are %s.", name, strings.Join(known, ", ")))
	}
	args := make(map[string]any, len(obj)-1)
	for _, m := range obj {
		if m.Key != "tool" {
			args[m.Key] = plain(m.Value)
		}
	}
	return Action{Tool: name, Args: args}, nil
}

// plain turns decoded TOON values into plain Go values: objects become
// maps, numbers stay int64 or float64.
func plain(v any) any {
	switch v := v.(type) {
	case toon.Object:
		m := make(map[string]any, len(v))
		for _, mem := range v {
			m[mem.Key] = plain(mem.Value)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	case toon.Number:
		return string(v)
	}
	return v
}

func malformed(reason string) error { return &MalformedError{Reason: reason} }
