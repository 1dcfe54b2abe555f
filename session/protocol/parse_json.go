package protocol

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coreagent/core/toon"
)

// wrapperKey names the member that holds a call's arguments in the JSON
// shapes models write.
func wrapperKey(k string) bool {
	return k == "arguments" || k == "args" || k == "parameters" || k == "input"
}

// parseJSON reads one JSON action, or an array of them (the first runs).
// The shapes: {"tool": NAME, …arguments}, {"tool": NAME, "arguments": {…}},
// {"name": NAME, "arguments": {…} or "{…}"} (Hermes, Qwen2.5, OpenAI's
// function object) and {"type": "function", "function": {…}} (an OpenAI
// tool call).
func parseJSON(c string, known []string) (Action, error) {
	c = strings.TrimSpace(c)
	if strings.HasPrefix(c, "[") {
		var list []json.RawMessage
		if err := json.Unmarshal([]byte(c), &list); err != nil {
			return Action{}, malformed(fmt.Sprintf("the reply is neither valid TOON nor JSON: %v.", err))
		}
		if len(list) == 0 {
			return Action{}, malformed("the reply is an empty JSON array: write one action.")
		}
		a, err := parseJSON(string(list[0]), known)
		if err != nil {
			return a, err
		}
		for _, raw := range list[1:] {
			if _, err := parseJSON(string(raw), known); err == nil {
				a.Skipped++
			}
		}
		return a, nil
	}
	var obj toon.Object
	dec := json.NewDecoder(strings.NewReader(c))
	if err := dec.Decode(&obj); err != nil {
		return Action{}, malformed(fmt.Sprintf("the reply is neither valid TOON nor a JSON object: %v.", err))
	}
	a, err := fromJSONObject(obj, known)
	if err != nil {
		return a, err
	}
	// Further objects after the first, as in {…}\n{…}, are further actions.
	for {
		var more toon.Object
		if err := dec.Decode(&more); err != nil {
			break
		}
		if _, err := fromJSONObject(more, known); err == nil {
			a.Skipped++
		}
	}
	return a, nil
}

// fromJSONObject reads the JSON action shapes.
func fromJSONObject(obj toon.Object, known []string) (Action, error) {
	if _, ok := obj.Get("tool"); ok {
		return fromObject(obj, known)
	}
	if fn, ok := obj.Get("function"); ok {
		if inner, ok := fn.(toon.Object); ok {
			a, err := fromJSONObject(inner, known)
			if id, ok := obj.Get("id"); ok && err == nil {
				a.CallID, _ = id.(string)
			}
			return a, err
		}
	}
	n, ok := obj.Get("name")
	if !ok {
		return Action{}, malformed(fmt.Sprintf("the object has no tool field (its fields: %s).", strings.Join(obj.Keys(), ", ")))
	}
	name, ok := n.(string)
	if !ok || name == "" {
		return Action{}, malformed("the name field must be a tool name (a string).")
	}
	var args map[string]any
	for _, m := range obj {
		if !wrapperKey(m.Key) {
			continue
		}
		var err error
		if args, err = argsValue(name, m.Value); err != nil {
			return Action{}, err
		}
		break
	}
	return action(name, args, known)
}

// argsValue reads a call's arguments: an object, or a JSON object in a
// string (OpenAI's wire form).
func argsValue(tool string, v any) (map[string]any, error) {
	switch v := v.(type) {
	case toon.Object:
		return plain(v).(map[string]any), nil
	case nil:
		return map[string]any{}, nil
	case string:
		if strings.TrimSpace(v) == "" {
			return map[string]any{}, nil
		}
		var obj toon.Object
		if err := json.Unmarshal([]byte(v), &obj); err != nil {
			return nil, malformed(fmt.Sprintf("the arguments of %s are not a JSON object: %v.", tool, err))
		}
		return plain(obj).(map[string]any), nil
	}
	return nil, malformed(fmt.Sprintf("the arguments of %s must be an object of named arguments.", tool))
}
