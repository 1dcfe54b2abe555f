package toon

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
)

// maxNesting bounds the depth of values accepted by Marshal, so that cyclic
// data structures fail instead of exhausting the stack.
const maxNesting = 10000

var (
	objectType        = reflect.TypeFor[Object]()
	numberType        = reflect.TypeFor[Number]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// normalize maps a Go value to the normalized tree the writer renders.
func normalize(v any) (any, error) {
	return normalizeValue(v, 0)
}

func normalizeValue(v any, depth int) (any, error) {
	if depth > maxNesting {
		return nil, &UnsupportedValueError{Msg: fmt.Sprintf("nesting deeper than %d levels (cyclic value?)", maxNesting)}
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string, bool:
		return x, nil
	case int:
		return int64(x), nil
	case int64, uint64:
		return x, nil
	case float64:
		return floatValue(x, 64), nil
	case Number:
		return numberText(string(x))
	case json.Number:
		return numberText(string(x))
	case canonNum:
		return x, nil
	case Object:
		out := make(Object, 0, len(x))
		seen := make(map[string]bool, len(x))
		for _, m := range x {
			if seen[m.Key] {
				return nil, &UnsupportedValueError{Msg: fmt.Sprintf("object has duplicate key %q", m.Key)}
			}
			seen[m.Key] = true
			nv, err := normalizeValue(m.Value, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, Member{Key: m.Key, Value: nv})
		}
		return out, nil
	case []any:
		if x == nil {
			return nil, nil
		}
		out := make([]any, len(x))
		for i, el := range x {
			nv, err := normalizeValue(el, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = nv
		}
		return out, nil
	case map[string]any:
		if x == nil {
			return nil, nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(Object, 0, len(x))
		for _, k := range keys {
			nv, err := normalizeValue(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, Member{Key: k, Value: nv})
		}
		return out, nil
	}
	return normalizeReflect(reflect.ValueOf(v), depth)
}

func floatValue(f float64, bits int) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return canonNum(formatFloat(f, bits))
}

func numberText(s string) (any, error) {
	d, ok := parseDecimal(s)
	if !ok {
		return nil, &UnsupportedValueError{Msg: fmt.Sprintf("invalid number literal %q", s)}
	}
	return canonNum(d.canonical()), nil
}

func normalizeReflect(rv reflect.Value, depth int) (any, error) {
	if depth > maxNesting {
		return nil, &UnsupportedValueError{Msg: fmt.Sprintf("nesting deeper than %d levels (cyclic value?)", maxNesting)}
	}
	if !rv.IsValid() {
		return nil, nil
	}
	t := rv.Type()
	switch t {
	case objectType:
		return normalizeObjectReflect(rv, depth)
	case numberType, jsonNumberType:
		return numberText(rv.String())
	}
	if !rv.CanInterface() {
		return normalizeKind(rv, depth)
	}
	if h := hooksOf(t); h != 0 {
		addressable := rv.Kind() != reflect.Pointer && rv.CanAddr()
		switch {
		case addressable && h&ptrJSONMarshaler != 0:
			return marshalJSONValue(rv.Addr(), depth)
		case h&jsonMarshaler != 0:
			return marshalJSONValue(rv, depth)
		case addressable && h&ptrTextMarshaler != 0:
			return marshalTextValue(rv.Addr())
		case h&textMarshaler != 0:
			return marshalTextValue(rv)
		}
	}
	return normalizeKind(rv, depth)
}

// Marshaling hooks a type provides, directly or through its pointer.
const (
	jsonMarshaler = 1 << iota
	ptrJSONMarshaler
	textMarshaler
	ptrTextMarshaler
)

var hooksCache sync.Map // reflect.Type -> int

func hooksOf(t reflect.Type) int {
	if h, ok := hooksCache.Load(t); ok {
		return h.(int)
	}
	h := 0
	pt := reflect.PointerTo(t)
	if t.Implements(jsonMarshalerType) {
		h |= jsonMarshaler
	}
	if pt.Implements(jsonMarshalerType) {
		h |= ptrJSONMarshaler
	}
	if t.Implements(textMarshalerType) {
		h |= textMarshaler
	}
	if pt.Implements(textMarshalerType) {
		h |= ptrTextMarshaler
	}
	hooksCache.Store(t, h)
	return h
}

// normalizeObjectReflect normalizes an Object reached through reflection
// (possibly through an unexported embedded field, so without Interface).
func normalizeObjectReflect(rv reflect.Value, depth int) (any, error) {
	out := make(Object, 0, rv.Len())
	seen := make(map[string]bool, rv.Len())
	for i := 0; i < rv.Len(); i++ {
		m := rv.Index(i)
		key := m.Field(0).String()
		if seen[key] {
			return nil, &UnsupportedValueError{Msg: fmt.Sprintf("object has duplicate key %q", key)}
		}
		seen[key] = true
		nv, err := normalizeReflect(m.Field(1), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{Key: key, Value: nv})
	}
	return out, nil
}

// normalizeKind normalizes by reflect.Kind, ignoring marshaler methods.
func normalizeKind(rv reflect.Value, depth int) (any, error) {
	t := rv.Type()
	switch rv.Kind() {
	case reflect.Interface, reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		return normalizeReflect(rv.Elem(), depth+1)
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint(), nil
	case reflect.Float32:
		return floatValue(rv.Float(), 32), nil
	case reflect.Float64:
		return floatValue(rv.Float(), 64), nil
	case reflect.Slice:
		if rv.IsNil() {
			return nil, nil
		}
		if t.Elem().Kind() == reflect.Uint8 && !isMarshaler(t.Elem()) {
			return base64.StdEncoding.EncodeToString(rv.Bytes()), nil
		}
		return normalizeElems(rv, depth)
	case reflect.Array:
		return normalizeElems(rv, depth)
	case reflect.Map:
		return normalizeMap(rv, depth)
	case reflect.Struct:
		return normalizeStruct(rv, depth)
	}
	return nil, &UnsupportedTypeError{Type: t}
}

func isMarshaler(t reflect.Type) bool { return hooksOf(t) != 0 }

func marshalJSONValue(rv reflect.Value, depth int) (any, error) {
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil
	}
	m, ok := rv.Interface().(json.Marshaler)
	if !ok {
		return nil, nil
	}
	data, err := m.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("toon: calling MarshalJSON for type %s: %w", rv.Type(), err)
	}
	v, err := parseJSON(data, true)
	if err != nil {
		return nil, fmt.Errorf("toon: invalid JSON from MarshalJSON for type %s: %w", rv.Type(), err)
	}
	return normalizeValue(v, depth+1)
}

func marshalTextValue(rv reflect.Value) (any, error) {
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil
	}
	m, ok := rv.Interface().(encoding.TextMarshaler)
	if !ok {
		return nil, nil
	}
	text, err := m.MarshalText()
	if err != nil {
		return nil, fmt.Errorf("toon: calling MarshalText for type %s: %w", rv.Type(), err)
	}
	return string(text), nil
}

func normalizeElems(rv reflect.Value, depth int) (any, error) {
	out := make([]any, rv.Len())
	for i := range out {
		nv, err := normalizeReflect(rv.Index(i), depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = nv
	}
	return out, nil
}

func normalizeMap(rv reflect.Value, depth int) (any, error) {
	if rv.IsNil() {
		return nil, nil
	}
	type kv struct {
		key string
		val reflect.Value
	}
	kt := rv.Type().Key()
	pairs := make([]kv, 0, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		k := iter.Key()
		var ks string
		switch {
		case kt.Kind() == reflect.String:
			ks = k.String()
		case kt.Implements(textMarshalerType):
			if k.Kind() == reflect.Pointer && k.IsNil() {
				ks = ""
				break
			}
			b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return nil, fmt.Errorf("toon: calling MarshalText for map key of type %s: %w", kt, err)
			}
			ks = string(b)
		case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Int64:
			ks = strconv.FormatInt(k.Int(), 10)
		case kt.Kind() >= reflect.Uint && kt.Kind() <= reflect.Uintptr:
			ks = strconv.FormatUint(k.Uint(), 10)
		default:
			return nil, &UnsupportedTypeError{Type: rv.Type()}
		}
		pairs = append(pairs, kv{ks, iter.Value()})
	}
	slices.SortFunc(pairs, func(a, b kv) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	out := make(Object, 0, len(pairs))
	for i, p := range pairs {
		if i > 0 && pairs[i-1].key == p.key {
			return nil, &UnsupportedValueError{Msg: fmt.Sprintf("map keys of type %s collide as %q", kt, p.key)}
		}
		nv, err := normalizeReflect(p.val, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{Key: p.key, Value: nv})
	}
	return out, nil
}

func normalizeStruct(rv reflect.Value, depth int) (any, error) {
	si := fieldsOf(rv.Type())
	out := make(Object, 0, len(si.fields))
	for i := range si.fields {
		f := &si.fields[i]
		fv, ok := fieldByIndex(rv, f.index)
		if !ok {
			continue
		}
		if f.omitEmpty && isEmptyValue(fv) || f.omitZero && isZeroValue(fv) {
			continue
		}
		nv, err := normalizeReflect(fv, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{Key: f.name, Value: nv})
	}
	return out, nil
}

// isEmptyValue implements "omitempty": false, 0, "", nil pointers and
// interfaces, and empty arrays, slices and maps.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// isZeroValue implements "omitzero": the value's IsZero method when it has
// one, reflect.Value.IsZero otherwise.
func isZeroValue(v reflect.Value) bool {
	if !v.CanInterface() {
		return v.IsZero()
	}
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	return v.IsZero()
}
