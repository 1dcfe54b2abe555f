package toon

import (
	"fmt"
	"reflect"
)

// SyntaxError reports malformed TOON input, or input that violates a
// strict-mode rule of the specification (§14). Its message names the line
// and says what was expected, for example
// "line 3: array declared 2 items, found 3".
type SyntaxError struct {
	// Line is the 1-based line number the problem was found on.
	Line int
	// Msg describes the problem.
	Msg string
}

// Error implements the error interface.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

func syntaxErr(line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// UnmarshalTypeError reports a decoded value that cannot be stored in the Go
// value it was destined for.
type UnmarshalTypeError struct {
	// Value describes the TOON value: "string", "number 1.5", "object", ...
	Value string
	// Type is the Go type that could not hold it.
	Type reflect.Type
	// Path locates the value in the document, such as "items[2].name"; it is
	// empty for the root.
	Path string
}

// Error implements the error interface.
func (e *UnmarshalTypeError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("toon: cannot unmarshal %s into Go value of type %s", e.Value, e.Type)
	}
	return fmt.Sprintf("toon: cannot unmarshal %s into Go value of type %s at %s", e.Value, e.Type, e.Path)
}

// UnknownFieldError reports an object key that matches no struct field when
// the [DisallowUnknownFields] option is set.
type UnknownFieldError struct {
	// Key is the unmatched key.
	Key string
	// Type is the struct type being decoded into.
	Type reflect.Type
	// Path locates the object holding the key; it is empty for the root.
	Path string
}

// Error implements the error interface.
func (e *UnknownFieldError) Error() string {
	where := ""
	if e.Path != "" {
		where = " at " + e.Path
	}
	return fmt.Sprintf("toon: unknown field %q for type %s%s", e.Key, e.Type, where)
}

// InvalidUnmarshalError reports an argument to [Unmarshal] that is not a
// non-nil pointer.
type InvalidUnmarshalError struct {
	// Type is the type of the argument (nil when the argument was nil).
	Type reflect.Type
}

// Error implements the error interface.
func (e *InvalidUnmarshalError) Error() string {
	if e.Type == nil {
		return "toon: Unmarshal(nil)"
	}
	if e.Type.Kind() != reflect.Pointer {
		return "toon: Unmarshal(non-pointer " + e.Type.String() + ")"
	}
	return "toon: Unmarshal(nil " + e.Type.String() + ")"
}

// UnsupportedTypeError reports a Go type that has no TOON representation,
// such as a channel, a function or a complex number.
type UnsupportedTypeError struct {
	// Type is the offending type.
	Type reflect.Type
}

// Error implements the error interface.
func (e *UnsupportedTypeError) Error() string {
	return "toon: unsupported type: " + e.Type.String()
}

// UnsupportedValueError reports a Go value that cannot be encoded, such as
// a cyclic data structure or an invalid json.Number.
type UnsupportedValueError struct {
	// Msg describes the problem.
	Msg string
}

// Error implements the error interface.
func (e *UnsupportedValueError) Error() string {
	return "toon: unsupported value: " + e.Msg
}
