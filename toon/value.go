package toon

import (
	"encoding/json"
	"math"
	"strconv"
)

// Member is one key/value pair of an [Object].
type Member struct {
	// Key is the field name.
	Key string
	// Value is the field value: one of the generic value types described in
	// the package documentation.
	Value any
}

// Object is a TOON/JSON object whose members keep their order. Decoding
// produces Object values; encoding an Object emits its members in order.
//
// An Object should not hold two members with the same key; [Object.Set]
// maintains that invariant.
type Object []Member

// Len reports the number of members.
func (o Object) Len() int { return len(o) }

// Keys returns the member keys in order.
func (o Object) Keys() []string {
	keys := make([]string, len(o))
	for i, m := range o {
		keys[i] = m.Key
	}
	return keys
}

// Get returns the value stored under key and whether it was present.
func (o Object) Get(key string) (any, bool) {
	if i := o.index(key); i >= 0 {
		return o[i].Value, true
	}
	return nil, false
}

// Set stores value under key, replacing the value in place when the key is
// present and appending a new member otherwise.
func (o *Object) Set(key string, value any) {
	if i := o.index(key); i >= 0 {
		(*o)[i].Value = value
		return
	}
	*o = append(*o, Member{Key: key, Value: value})
}

// Delete removes the member stored under key, if any, keeping the order of
// the other members.
func (o *Object) Delete(key string) {
	if i := o.index(key); i >= 0 {
		*o = append((*o)[:i], (*o)[i+1:]...)
	}
}

func (o Object) index(key string) int {
	for i := range o {
		if o[i].Key == key {
			return i
		}
	}
	return -1
}

// MarshalJSON renders the object as a JSON object with its members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	return appendJSON(nil, o)
}

// UnmarshalJSON parses a JSON object, keeping the member order of the input.
// Nested objects become [Object] values and numbers become int64, float64 or
// [Number] exactly as [Decode] would produce them.
func (o *Object) UnmarshalJSON(data []byte) error {
	v, err := parseJSON(data, false)
	if err != nil {
		return err
	}
	obj, ok := v.(Object)
	if !ok {
		return &json.UnmarshalTypeError{Value: jsonKind(v), Type: objectType}
	}
	*o = obj
	return nil
}

// Number is a numeric literal kept as text. [Decode] returns Number values
// for every number when the [UseNumber] option is set, and for numbers that
// do not fit a float64 otherwise. [Marshal] emits a Number in canonical form.
type Number string

// String returns the literal text.
func (n Number) String() string { return string(n) }

// Float64 returns the number as a float64.
func (n Number) Float64() (float64, error) {
	return strconv.ParseFloat(string(n), 64)
}

// Int64 returns the number as an int64. Integer-valued literals in exponent
// or fractional form (such as 1e3 or 2.0) are accepted; fractions and values
// out of range are errors.
func (n Number) Int64() (int64, error) {
	d, ok := parseDecimal(string(n))
	if !ok {
		return 0, &strconv.NumError{Func: "Int64", Num: string(n), Err: strconv.ErrSyntax}
	}
	text, ok := d.smallIntegerText()
	if !ok {
		return 0, &strconv.NumError{Func: "Int64", Num: string(n), Err: strconv.ErrSyntax}
	}
	return strconv.ParseInt(text, 10, 64)
}

// Equal reports whether a and b are equal under the JSON-model equality of
// the specification (§2): objects compare by ordered keys and values, arrays
// element-wise, strings byte-wise, and numbers by value, so int64(1),
// float64(1), Number("1.0") and json.Number("1e0") are all equal. Floats are
// compared through their shortest round-trip decimal form. Values of other
// types are never equal.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case Object:
		y, ok := b.(Object)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !Equal(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	ca, ok := canonicalNumber(a)
	if !ok {
		return false
	}
	cb, ok := canonicalNumber(b)
	return ok && ca == cb
}

// canonicalNumber returns the canonical text of a generic numeric value.
func canonicalNumber(v any) (string, bool) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return formatFloat(x, 64), true
	case Number:
		return canonicalText(string(x))
	case json.Number:
		return canonicalText(string(x))
	}
	return "", false
}

func canonicalText(s string) (string, bool) {
	d, ok := parseDecimal(s)
	if !ok {
		return "", false
	}
	return d.canonical(), true
}
