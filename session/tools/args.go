package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/coreagent/core/toon"
)

// Args are a call's arguments as the protocol parsed them: string, int64,
// float64, bool, nil, []any or map[string]any values.
type Args map[string]any

// ArgError is an argument the model got wrong. It names the argument and
// what was expected; the model can fix it.
type ArgError struct {
	Tool, Arg, Msg string
}

func (e *ArgError) Error() string {
	if e.Tool == "" {
		return fmt.Sprintf("argument %q %s", e.Arg, e.Msg)
	}
	return fmt.Sprintf("%s: argument %q %s", e.Tool, e.Arg, e.Msg)
}

// String returns a required string argument. The empty string is a value.
func (a Args) String(name string) (string, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return "", &ArgError{Arg: name, Msg: "is required (a string)"}
	}
	s, ok := v.(string)
	if !ok {
		msg := "must be a string, got " + describe(v)
		switch v.(type) {
		case int64, int, float64, bool, toon.Number:
			msg += " (quote it)"
		}
		return "", &ArgError{Arg: name, Msg: msg}
	}
	return s, nil
}

// OptionalString returns a string argument, or def when it is absent or
// null.
func (a Args) OptionalString(name, def string) (string, error) {
	if v, ok := a[name]; !ok || v == nil {
		return def, nil
	}
	return a.String(name)
}

// OptionalInt returns an integer argument, or def when it is absent or
// null. It accepts int64, a float64 with an integral value and a decimal
// string.
func (a Args) OptionalInt(name string, def int) (int, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	bad := &ArgError{Arg: name, Msg: "must be an integer, got " + describe(v)}
	switch n := v.(type) {
	case int64:
		return int(n), nil
	case int:
		return n, nil
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, bad
		}
		return int(n), nil
	case toon.Number:
		i, err := n.Int64()
		if err != nil {
			return 0, bad
		}
		return int(i), nil
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil {
			return 0, bad
		}
		return i, nil
	}
	return 0, bad
}

// OptionalBool returns a boolean argument, or def when it is absent or
// null. It accepts true and false, and the strings true, false, yes and no.
func (a Args) OptionalBool(name string, def bool) (bool, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(b)) {
		case "true", "yes":
			return true, nil
		case "false", "no":
			return false, nil
		}
	}
	return false, &ArgError{Arg: name, Msg: "must be true or false, got " + describe(v)}
}

// has reports whether the argument was given (and is not null).
func (a Args) has(name string) bool {
	v, ok := a[name]
	return ok && v != nil
}

// describe names a value's kind for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			return "a string of " + strconv.Itoa(len(x)) + " bytes"
		}
		return strconv.Quote(x)
	case int64, int, float64, toon.Number:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}
