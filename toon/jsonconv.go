package toon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// parseJSON parses one JSON value into generic values, keeping object key
// order. Numbers become Number when keepNumbers is set and the types of
// [Decode] otherwise.
func parseJSON(data []byte, keepNumbers bool) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readJSONValue(dec, keepNumbers)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("toon: unexpected data after JSON value")
	}
	return v, nil
}

func readJSONValue(dec *json.Decoder, keepNumbers bool) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	return jsonTokenValue(dec, tok, keepNumbers)
}

func jsonTokenValue(dec *json.Decoder, tok json.Token, keepNumbers bool) (any, error) {
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			obj := Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := readJSONValue(dec, keepNumbers)
				if err != nil {
					return nil, err
				}
				obj.Set(key, v)
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := readJSONValue(dec, keepNumbers)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("toon: unexpected JSON delimiter %v", x)
	case json.Number:
		if keepNumbers {
			return Number(x), nil
		}
		d, ok := parseDecimal(string(x))
		if !ok {
			return nil, fmt.Errorf("toon: invalid JSON number %q", string(x))
		}
		return decimalValue(d, string(x)), nil
	}
	return tok, nil // string, bool or nil
}

// appendJSON appends the JSON encoding of a generic value.
func appendJSON(buf []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case bool:
		return strconv.AppendBool(buf, x), nil
	case string:
		return appendJSONString(buf, x), nil
	case int64:
		return strconv.AppendInt(buf, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, &UnsupportedValueError{Msg: strconv.FormatFloat(x, 'g', -1, 64)}
		}
		return append(buf, formatFloat(x, 64)...), nil
	case Number, json.Number, canonNum:
		// The literal is written as is: TOON's number grammar is JSON's.
		s := fmt.Sprint(x)
		if _, ok := parseDecimal(s); !ok {
			return nil, &UnsupportedValueError{Msg: fmt.Sprintf("invalid number literal %q", s)}
		}
		return append(buf, s...), nil
	case Object:
		buf = append(buf, '{')
		var err error
		for i, m := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, m.Key)
			buf = append(buf, ':')
			if buf, err = appendJSON(buf, m.Value); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	case []any:
		buf = append(buf, '[')
		var err error
		for i, el := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = appendJSON(buf, el); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(buf, data...), nil
}

func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c < 0x20:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, `\ufffd`...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// jsonKind names the JSON kind of a generic value for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case Object:
		return "object"
	case []any:
		return "array"
	}
	return "number"
}
