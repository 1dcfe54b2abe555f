package toon

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		opts []DecodeOption
		want any
	}{
		{name: "number types", in: "[9]: 42,-7,1e6,1.0,-0,1.5,1e-7,9223372036854775808,1e400",
			want: []any{int64(42), int64(-7), int64(1000000), int64(1), int64(0), 1.5, 1e-7, Number("9223372036854775808"), Number("1e400")}},
		{name: "imprecise decimal stays a Number", in: "x: 0.10000000000000000001",
			want: Object{{"x", Number("0.10000000000000000001")}}},
		{name: "UseNumber keeps literal text", in: "[2]: 1.50,-0", opts: []DecodeOption{UseNumber()},
			want: []any{Number("1.50"), Number("-0")}},
		{name: "non-numbers stay strings", in: "[6]: 05,-05,1.,.5,+1,0x10",
			want: []any{"05", "-05", "1.", ".5", "+1", "0x10"}},
		{name: "action with multi-line content", in: "tool: write_file\npath: a.go\ncontent: \"package a\\n\\nfunc A() {}\\n\"",
			want: Object{{"tool", "write_file"}, {"path", "a.go"}, {"content", "package a\n\nfunc A() {}\n"}}},
		{name: "CRLF line endings", in: "a: 1\r\nb:\r\n  c: x\r\n",
			want: Object{{"a", int64(1)}, {"b", Object{{"c", "x"}}}}},
		{name: "keyless tabular list item", in: "[1]:\n  - [2]{a}:\n    1\n    2",
			want: []any{[]any{Object{{"a", int64(1)}}, Object{{"a", int64(2)}}}}},
		{name: "custom indent", in: "a:\n    b[1]:\n        - c: 1\n            d: 2", opts: []DecodeOption{DecodeIndent(4)},
			want: Object{{"a", Object{{"b", []any{Object{{"c", int64(1)}, {"d", int64(2)}}}}}}}},
		{name: "non-strict tolerates counts, widths and blank lines", in: "a[3]: x\nt[1]{p,q}:\n  1\n\n  2,3,4", opts: []DecodeOption{Strict(false)},
			want: Object{{"a", []any{"x"}}, {"t", []any{Object{{"p", int64(1)}}, Object{{"p", int64(2)}, {"q", int64(3)}}}}}},
		{name: "non-strict accepts any literal key", in: "my-key: 1\nfoo[x]: 2", opts: []DecodeOption{Strict(false)},
			want: Object{{"my-key", int64(1)}, {"foo[x]", int64(2)}}},
		{name: "path expansion merges", in: "a.b: 1\na.c[1]: x\n\"a.d\": 2", opts: []DecodeOption{ExpandPaths(true)},
			want: Object{{"a", Object{{"b", int64(1)}, {"c", []any{"x"}}}}, {"a.d", int64(2)}}},
		{name: "path expansion in list items and tabular rows", in: "[1]:\n  - x.y: 1\n    r[1]{p.q}:\n      2", opts: []DecodeOption{ExpandPaths(true)},
			want: []any{Object{{"x", Object{{"y", int64(1)}}}, {"r", []any{Object{{"p", Object{{"q", int64(2)}}}}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decode([]byte(tc.in), tc.opts...)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Decode:\n got  %#v\n want %#v", got, tc.want)
			}
		})
	}
}

// TestDecodeErrors checks the message and line of every strict-mode check.
func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		opts []DecodeOption
		want string
	}{
		{name: "inline count", in: "a: 1\ntags[2]: x,y,z", want: "line 2: array declared 2 items, found 3"},
		{name: "list count", in: "items[2]:\n  - a\n  - b\n  - c", want: "line 1: array declared 2 items, found 3"},
		{name: "single item count", in: "items[1]:", want: "line 1: array declared 1 item, found 0"},
		{name: "tabular row count", in: "t[3]{a}:\n  1\n  2", want: "line 1: array declared 3 items, found 2"},
		{name: "tabular row width", in: "t[2]{a,b}:\n  1,2\n  3", want: "line 3: tabular row has 1 value, expected 2 (fields: a,b)"},
		{name: "missing colon", in: "a:\n  b: 1\n  c", want: `line 3: missing ':' in "c"; expected "key: value"`},
		{name: "missing colon after quoted key", in: `"a" 1`, want: `line 1: unexpected text " 1" after closing quote`},
		{name: "missing colon after quoted key in object", in: "x: 1\n\"a\" 1", want: `line 2: missing ':' after key "a"`},
		{name: "two root primitives", in: "hello\nworld", want: `line 1: missing ':' in "hello"; expected "key: value"`},
		{name: "invalid escape", in: `a: "x\q"`, want: `line 1: invalid escape sequence \q in quoted string (allowed: \\ \" \n \r \t \uXXXX)`},
		{name: "short unicode escape", in: `a: "\u12"`, want: `line 1: invalid \u escape: expected four hex digits`},
		{name: "surrogate escape", in: `a: "\udc00"`, want: `line 1: invalid \u escape: surrogate U+DC00 is not a Unicode scalar value`},
		{name: "unterminated string", in: "a: 1\nb: \"open", want: "line 2: unterminated quoted string"},
		{name: "raw control character", in: "a: \"x\x01\"", want: "line 1: control character U+0001 must be escaped in a quoted string"},
		{name: "delimiter mismatch", in: "t[1|]{a,b}:\n  1|2", want: "line 1: header delimiter mismatch: the field list uses comma but the bracket declares pipe"},
		{name: "leading-zero length", in: "a[01]: x", want: `line 1: invalid array length "[01]": expected [N], [N|] or [N<TAB>] with N a non-negative integer without leading zeros`},
		{name: "content after bracket", in: "a[1]x: y", want: `line 1: unexpected "x" after array header; expected ':' right after ']' or '}'`},
		{name: "header missing colon", in: "x: 1\na[1]{b}", want: `line 2: missing ':' after array header "a[1]{b}"`},
		{name: "values after tabular header", in: "a[1]{b}: 1", want: "line 1: unexpected values after tabular header; rows belong on the following lines"},
		{name: "odd indentation", in: "a:\n   b: 1", want: "line 2: indentation of 3 spaces is not a multiple of 2"},
		{name: "tab indentation", in: "a:\n\tb: 1", want: "line 2: tab character in indentation; indent with spaces"},
		{name: "blank line in list", in: "a[2]:\n  - 1\n\n  - 2", want: "line 3: blank line inside the array declared on line 1"},
		{name: "blank line in list item object", in: "a[2]:\n  - x: 1\n\n    y: 2\n  - 3", want: "line 3: blank line inside the array declared on line 1"},
		{name: "duplicate key", in: "a: 1\nb: 2\na: 3", want: `line 3: duplicate key "a" (first defined on line 1)`},
		{name: "duplicate field", in: "t[1]{a,a}:\n  1,2", want: `line 1: duplicate field "a" in tabular header`},
		{name: "expansion conflict", in: "a: 1\na.b: 2", opts: []DecodeOption{ExpandPaths(true)}, want: "line 2: expansion conflict at path 'a' (primitive vs object)"},
		{name: "invalid unquoted key", in: "my-key: 1", want: `line 1: invalid unquoted key "my-key": unquoted keys must match ^[A-Za-z_][A-Za-z0-9_.]*$; quote the key`},
		{name: "unexpected indentation", in: "a: 1\n  b: 2", want: "line 2: unexpected indentation (level 1 where level 0 or less was expected)"},
		{name: "indented first line", in: "  a: 1", want: "line 1: unexpected indentation: the first line must not be indented"},
		{name: "list item outside array", in: "a:\n  - 1", want: `line 2: unexpected list item: no array header declares it; expected "key: value"`},
		{name: "non-item line in list", in: "a[1]:\n  b: 1", want: `line 2: expected a list item "- ..." for the array declared on line 1`},
		{name: "content after root array", in: "[1]: x\ny: 1", want: "line 2: unexpected content after the root array"},
		{name: "keyless header in object", in: "a: 1\n[1]: x", want: `line 2: array header without a key inside an object; expected "key[N]: ..."`},
		{name: "invalid UTF-8", in: "a: 1\nb: \xff", want: "line 2: invalid UTF-8 encoding"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := Decode([]byte(tc.in), tc.opts...)
			if err == nil {
				t.Fatalf("Decode succeeded with %s, want error %q", toJSON(v), tc.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, want *SyntaxError", err, err)
			}
			if err.Error() != tc.want {
				t.Fatalf("error:\n got  %q\n want %q", err, tc.want)
			}
			if !strings.HasPrefix(tc.want, "line ") || se.Line < 1 {
				t.Fatalf("bad line %d", se.Line)
			}
		})
	}
}

func TestDecodeBadOptions(t *testing.T) {
	t.Parallel()
	if _, err := Decode([]byte("a: 1"), DecodeIndent(0)); err == nil || err.Error() != "toon: indent must be at least 1, got 0" {
		t.Fatalf("got %v", err)
	}
}

func TestDecoderReuse(t *testing.T) {
	t.Parallel()
	d := NewDecoder(Strict(false))
	for _, in := range []string{"a: 1\na: 2", "x[5]: 1"} {
		if _, err := d.Decode([]byte(in)); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
	}
	var r readFile
	if err := d.Unmarshal([]byte("tool: t\ntool: u"), &r); err != nil || r.Tool != "u" {
		t.Fatalf("got %+v, %v", r, err)
	}
}
