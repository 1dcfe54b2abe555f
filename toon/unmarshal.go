package toon

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
)

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Unmarshal decodes a TOON document and stores the result in the value
// pointed to by v, which must be a non-nil pointer.
//
// Objects fill structs (matching keys to fields named by the "toon" tag,
// else the "json" tag, else the field name; exact matches first, then
// case-insensitive ones; unknown keys are ignored unless
// [DisallowUnknownFields] is given), maps with string, integer or
// encoding.TextUnmarshaler keys, [Object] values and empty interfaces.
// Arrays fill slices, arrays and empty interfaces. Numbers fill integer and
// float kinds when they fit exactly (an integer field rejects 1.5 and
// out-of-range values); strings fill string kinds, []byte (as base64) and
// encoding.TextUnmarshaler implementations; null sets pointers, maps,
// slices and interfaces to nil and leaves other values unchanged. Types
// implementing json.Unmarshaler receive the JSON form of the value. Empty
// interfaces receive the generic values that [Decode] returns.
//
// Syntax errors are *[SyntaxError]; values that do not fit their destination
// yield *[UnmarshalTypeError]. Decoding stops at the first error.
func Unmarshal(data []byte, v any, opts ...DecodeOption) error {
	return NewDecoder(opts...).Unmarshal(data, v)
}

// Unmarshal decodes a TOON document into the value pointed to by v; see the
// package-level [Unmarshal].
func (d *Decoder) Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	dd := *d
	dd.useNumber = true
	val, err := dd.Decode(data)
	if err != nil {
		return err
	}
	u := unmarshaler{keepNumbers: d.useNumber, disallowUnknown: d.disallowUnknown}
	return u.assign(val, rv.Elem(), "")
}

type unmarshaler struct {
	keepNumbers     bool
	disallowUnknown bool
}

func describe(v any) string {
	switch x := v.(type) {
	case Number:
		return "number " + string(x)
	case string:
		if len(x) > 40 {
			x = x[:37] + "..."
		}
		return "string " + strconv.Quote(x)
	case bool:
		return "bool " + strconv.FormatBool(x)
	}
	return jsonKind(v)
}

func typeErr(src any, t reflect.Type, path string) error {
	return &UnmarshalTypeError{Value: describe(src), Type: t, Path: path}
}

func elemPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func keyPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// assign stores the generic value src (numbers as Number) into dst.
func (u *unmarshaler) assign(src any, dst reflect.Value, path string) error {
	if done, err := u.assignGenericType(src, dst, path); done {
		return err
	}
	if done, err := u.assignUnmarshaler(src, dst, path); done {
		return err
	}
	if done, err := u.assignIndirect(src, dst, path); done {
		return err
	}
	return u.assignValue(src, dst, path)
}

// assignGenericType stores src into an Object, a Number or a json.Number;
// done is false for any other dst.
func (u *unmarshaler) assignGenericType(src any, dst reflect.Value, path string) (done bool, err error) {
	switch dst.Type() {
	case objectType:
		switch x := src.(type) {
		case nil:
			dst.SetZero()
			return true, nil
		case Object:
			dst.Set(reflect.ValueOf(u.generic(x)))
			return true, nil
		}
		return true, typeErr(src, dst.Type(), path)
	case numberType, jsonNumberType:
		if n, ok := src.(Number); ok {
			dst.SetString(string(n))
			return true, nil
		}
		if src == nil {
			return true, nil
		}
		return true, typeErr(src, dst.Type(), path)
	}
	return false, nil
}

// assignUnmarshaler hands src to dst's json.Unmarshaler or
// encoding.TextUnmarshaler; done is false when dst has neither.
func (u *unmarshaler) assignUnmarshaler(src any, dst reflect.Value, path string) (done bool, err error) {
	if dst.Kind() != reflect.Pointer && dst.CanAddr() {
		pt := dst.Addr().Type()
		if pt.Implements(jsonUnmarshalerType) {
			data, err := appendJSON(nil, src)
			if err != nil {
				return true, err
			}
			return true, dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(data)
		}
		if pt.Implements(textUnmarshalerType) {
			switch s := src.(type) {
			case nil:
				return true, nil
			case string:
				return true, dst.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
			}
			return true, typeErr(src, dst.Type(), path)
		}
	}
	return false, nil
}

// assignIndirect stores src through a pointer or into an interface; done
// is false for any other kind of dst.
func (u *unmarshaler) assignIndirect(src any, dst reflect.Value, path string) (done bool, err error) {
	switch dst.Kind() {
	case reflect.Pointer:
		if src == nil {
			dst.SetZero()
			return true, nil
		}
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return true, u.assign(src, dst.Elem(), path)
	case reflect.Interface:
		if dst.NumMethod() != 0 {
			if src == nil {
				dst.SetZero()
				return true, nil
			}
			if !dst.IsNil() && dst.Elem().Kind() == reflect.Pointer {
				return true, u.assign(src, dst.Elem(), path)
			}
			return true, typeErr(src, dst.Type(), path)
		}
		if src == nil {
			dst.SetZero()
			return true, nil
		}
		dst.Set(reflect.ValueOf(u.generic(src)))
		return true, nil
	}
	return false, nil
}

// assignValue stores src, by its generic type, into a dst of a concrete
// kind.
func (u *unmarshaler) assignValue(src any, dst reflect.Value, path string) error {
	switch x := src.(type) {
	case nil:
		switch dst.Kind() {
		case reflect.Map, reflect.Slice:
			dst.SetZero()
		}
		return nil
	case bool:
		if dst.Kind() != reflect.Bool {
			return typeErr(src, dst.Type(), path)
		}
		dst.SetBool(x)
		return nil
	case string:
		return assignString(x, dst, path)
	case Number:
		return u.assignNumber(x, dst, path)
	case Object:
		switch dst.Kind() {
		case reflect.Struct:
			return u.assignStruct(x, dst, path)
		case reflect.Map:
			return u.assignMap(x, dst, path)
		}
		return typeErr(src, dst.Type(), path)
	case []any:
		return u.assignList(x, dst, path)
	}
	return typeErr(src, dst.Type(), path)
}

// assignString stores a string into a string, or into a []byte from its
// base64.
func assignString(x string, dst reflect.Value, path string) error {
	switch {
	case dst.Kind() == reflect.String:
		dst.SetString(x)
		return nil
	case dst.Kind() == reflect.Slice && dst.Type().Elem().Kind() == reflect.Uint8:
		b, err := base64.StdEncoding.DecodeString(x)
		if err != nil {
			return typeErr(x, dst.Type(), path)
		}
		dst.SetBytes(b)
		return nil
	}
	return typeErr(x, dst.Type(), path)
}

// assignList stores a list into a slice or an array (an array's elements
// past the list's end are zeroed).
func (u *unmarshaler) assignList(x []any, dst reflect.Value, path string) error {
	switch dst.Kind() {
	case reflect.Slice:
		s := reflect.MakeSlice(dst.Type(), len(x), len(x))
		for i, el := range x {
			if err := u.assign(el, s.Index(i), elemPath(path, i)); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	case reflect.Array:
		for i := 0; i < dst.Len(); i++ {
			if i >= len(x) {
				dst.Index(i).SetZero()
				continue
			}
			if err := u.assign(x[i], dst.Index(i), elemPath(path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return typeErr(x, dst.Type(), path)
}

func (u *unmarshaler) assignNumber(n Number, dst reflect.Value, path string) error {
	switch dst.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := n.Int64()
		if err != nil || dst.OverflowInt(i) {
			return typeErr(n, dst.Type(), path)
		}
		dst.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		d, _ := parseDecimal(string(n))
		s, ok := d.smallIntegerText()
		if !ok {
			return typeErr(n, dst.Type(), path)
		}
		i, err := strconv.ParseUint(s, 10, 64)
		if err != nil || dst.OverflowUint(i) {
			return typeErr(n, dst.Type(), path)
		}
		dst.SetUint(i)
		return nil
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(string(n), dst.Type().Bits())
		if err != nil {
			return typeErr(n, dst.Type(), path)
		}
		dst.SetFloat(f)
		return nil
	}
	return typeErr(n, dst.Type(), path)
}

func (u *unmarshaler) assignStruct(obj Object, dst reflect.Value, path string) error {
	si := fieldsOf(dst.Type())
	for _, m := range obj {
		f, ok := si.lookup(m.Key)
		if !ok {
			if u.disallowUnknown {
				return &UnknownFieldError{Key: m.Key, Type: dst.Type(), Path: path}
			}
			continue
		}
		fv, ok := fieldForSet(dst, f.index)
		if !ok {
			continue
		}
		if err := u.assign(m.Value, fv, keyPath(path, m.Key)); err != nil {
			return err
		}
	}
	return nil
}

// fieldForSet walks index from v, allocating nil embedded pointers. It
// returns false when an embedded pointer cannot be allocated (a pointer to
// an unexported struct type).
func fieldForSet(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, v.CanSet()
}

func (u *unmarshaler) assignMap(obj Object, dst reflect.Value, path string) error {
	t := dst.Type()
	kt := t.Key()
	if dst.IsNil() {
		dst.Set(reflect.MakeMapWithSize(t, len(obj)))
	}
	for _, m := range obj {
		key := reflect.New(kt).Elem()
		switch {
		case kt.Kind() == reflect.String:
			key.SetString(m.Key)
		case reflect.PointerTo(kt).Implements(textUnmarshalerType):
			if err := key.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(m.Key)); err != nil {
				return err
			}
		case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Int64:
			i, err := strconv.ParseInt(m.Key, 10, 64)
			if err != nil || key.OverflowInt(i) {
				return &UnmarshalTypeError{Value: "key " + strconv.Quote(m.Key), Type: kt, Path: path}
			}
			key.SetInt(i)
		case kt.Kind() >= reflect.Uint && kt.Kind() <= reflect.Uintptr:
			i, err := strconv.ParseUint(m.Key, 10, 64)
			if err != nil || key.OverflowUint(i) {
				return &UnmarshalTypeError{Value: "key " + strconv.Quote(m.Key), Type: kt, Path: path}
			}
			key.SetUint(i)
		default:
			return typeErr(obj, t, path)
		}
		elem := reflect.New(t.Elem()).Elem()
		if err := u.assign(m.Value, elem, keyPath(path, m.Key)); err != nil {
			return err
		}
		dst.SetMapIndex(key, elem)
	}
	return nil
}

// generic converts a decoded tree (numbers as Number) to the types Decode
// returns without UseNumber, unless numbers are to be kept. The tree is
// freshly decoded and converted in place.
func (u *unmarshaler) generic(v any) any {
	switch x := v.(type) {
	case Number:
		if u.keepNumbers {
			return x
		}
		d, _ := parseDecimal(string(x))
		return decimalValue(d, string(x))
	case Object:
		for i := range x {
			x[i].Value = u.generic(x[i].Value)
		}
		return x
	case []any:
		for i := range x {
			x[i] = u.generic(x[i])
		}
		return x
	}
	return v
}
