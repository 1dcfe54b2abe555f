// Package protocol is the turn protocol between core and the model: the
// system prompt that describes the tools and the reply format, and the
// parser that turns a reply into one action.
//
// The prompt asks for one action per reply, written as a TOON object whose
// tool field names the tool:
//
//	tool: read_file
//	path: cmd/core/main.go
//
// and, for multi-line arguments, the tool-call form Qwen3-Coder was trained
// on, whose parameter values are raw text with nothing escaped:
//
//	<tool_call>
//	<function=write_file>
//	<parameter=path>
//	main.go
//	</parameter>
//	<parameter=content>
//	package main
//	</parameter>
//	</function>
//	</tool_call>
//
// The parser also accepts what coder models write on their own: Hermes /
// Qwen2.5 <tool_call>{"name": …, "arguments": …}</tool_call>, bare
// {"name": …, "arguments": …} or {"tool": …} JSON (arguments an object or
// a JSON string), TOON or JSON inside a Markdown fence with prose around,
// full-line # comments in TOON, and native OpenAI tool calls
// ([ParseCalls]). <think> traces are stripped first. A reply with several
// actions yields the first, with Action.Skipped counting the rest.
package protocol

import (
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
	// CallID is the id of the native tool call the action came from;
	// empty for an action written in the reply's text.
	CallID string
	// Skipped counts the further actions the reply held; only the first
	// is run.
	Skipped int
}

// MalformedError says why a reply held no valid action, in words meant for
// the model: the engine sends it back as a correction ([Correction]).
type MalformedError struct {
	Reason string
	// Example shows the expected form, for the tool the reply seems to
	// want.
	Example string
}

func (e *MalformedError) Error() string { return e.Reason }

// Correction is the message that answers a malformed reply: the reason,
// then the expected form with an example.
func Correction(err error) string {
	var m *MalformedError
	if !errors.As(err, &m) {
		return "Your reply held no valid action: " + err.Error() + " Reply with exactly one action."
	}
	msg := "Your reply held no valid action: " + m.Reason + " Reply with exactly one action."
	if m.Example != "" {
		msg += " For example:\n\n" + m.Example
	}
	return msg
}

// SkippedNote is what the observation of a reply with several actions
// adds: only the first ran.
func SkippedNote(a Action) string {
	return fmt.Sprintf("Note: your reply held %d actions; only the first (%s) was run. One action runs per turn: send the next one after you see this result.", a.Skipped+1, a.Tool)
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	fence      = regexp.MustCompile("(?s)```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```")
	toolLine   = regexp.MustCompile(`(?m)^"?tool"?[ \t]*:`)
)

// Parse turns a model reply into one action whose tool is among known.
// The error, a *MalformedError, says precisely what was wrong and shows
// the expected form.
func Parse(reply string, known []string) (Action, error) {
	a, err := parse(reply, known)
	if err != nil {
		var m *MalformedError
		if errors.As(err, &m) && m.Example == "" {
			m.Example = Example(guessTool(reply, known))
		}
	}
	return a, err
}

func parse(reply string, known []string) (Action, error) {
	text := stripThink(reply)
	if strings.TrimSpace(text) == "" {
		return Action{}, malformed("the reply is empty (after removing <think> blocks).")
	}
	var firstErr error
	if hasMarkup(text) {
		a, err := parseMarkup(text, known)
		if err == nil || isUnknownTool(err) {
			return a, err
		}
		firstErr = err // unless the text holds an action in another form
	}
	for _, group := range candidates(text) {
		for i, c := range group {
			a, err := parseCandidate(c, known)
			if err == nil {
				a.Skipped += countActions(group[i+1:], known)
				return a, nil
			}
			if isUnknownTool(err) {
				return Action{}, err // the syntax was fine; the name was not
			}
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	if firstErr == nil {
		firstErr = malformed("no action found: the reply has no line starting with \"tool:\".")
	}
	return Action{}, firstErr
}

func isUnknownTool(err error) bool {
	var m *MalformedError
	return errors.As(err, &m) && strings.HasPrefix(m.Reason, "unknown tool")
}

// countActions counts the candidates that parse to an action.
func countActions(cands []string, known []string) int {
	n := 0
	for _, c := range cands {
		if a, err := parseCandidate(c, known); err == nil {
			n += 1 + a.Skipped
		}
	}
	return n
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

// candidates lists the texts that may hold the action, in groups, most
// likely group first: the contents of the fenced blocks; the segments that
// each start at a tool line; a JSON array of objects; the JSON from the first brace to the last;
// the whole text. The first candidate that parses is the action; the
// others of its group that parse are further actions.
func candidates(text string) [][]string {
	var out [][]string
	var fenced []string
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		fenced = append(fenced, m[1])
	}
	if len(fenced) > 0 {
		out = append(out, fenced)
	}
	if locs := toolLine.FindAllStringIndex(text, -1); locs != nil {
		var segs []string
		for i, loc := range locs {
			end := len(text)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			segs = append(segs, text[loc[0]:end])
		}
		out = append(out, segs)
		if len(segs) > 1 {
			out = append(out, []string{text[locs[0][0]:]})
		}
	}
	if i := strings.IndexByte(text, '['); i >= 0 {
		if j := strings.LastIndexByte(text, ']'); j > i && strings.HasPrefix(strings.TrimSpace(text[i+1:]), "{") {
			out = append(out, []string{text[i : j+1]})
		}
	}
	if i := strings.IndexByte(text, '{'); i >= 0 {
		if j := strings.LastIndexByte(text, '}'); j > i {
			out = append(out, []string{text[i : j+1]})
		}
	}
	return append(out, []string{text})
}

// parseCandidate decodes one candidate as tool-call markup, JSON or TOON
// (without its trailing prose when it has some).
func parseCandidate(c string, known []string) (Action, error) {
	c = strings.TrimSpace(c)
	if hasMarkup(c) {
		return parseMarkup(c, known)
	}
	if strings.HasPrefix(c, "{") || strings.HasPrefix(c, "[") {
		if a, err := parseJSON(c, known); err == nil || strings.HasPrefix(c, "{") {
			return a, err
		}
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
	if len(obj) == 2 {
		// {"tool": NAME, "arguments": {…} or "{…}"}: the arguments wrapped.
		for _, m := range obj {
			if !wrapperKey(m.Key) {
				continue
			}
			if _, isString := m.Value.(string); isString && !strings.HasPrefix(strings.TrimSpace(m.Value.(string)), "{") {
				continue // a plain string argument that happens to be so named
			}
			args, err := argsValue(name, m.Value)
			if err != nil {
				return Action{}, err
			}
			return action(name, args, known)
		}
	}
	args := make(map[string]any, len(obj)-1)
	for _, m := range obj {
		if m.Key != "tool" {
			args[m.Key] = plain(m.Value)
		}
	}
	return action(name, args, known)
}

// action checks the tool's name.
func action(name string, args map[string]any, known []string) (Action, error) {
	if !slices.Contains(known, name) {
		return Action{}, malformed(fmt.Sprintf("unknown tool %q: the tools are %s.", name, strings.Join(known, ", ")))
	}
	if args == nil {
		args = map[string]any{}
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
