package toon

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

type action struct {
	Tool      string `toon:"tool"`
	Path      string `toon:"path"`
	StartLine int    `toon:"start_line,omitempty"`
	Content   string `json:"content,omitempty"`
	Internal  string `toon:"-"`
}

type dirEntry struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

type Base struct {
	ID      int    `json:"id"`
	Created string `json:"created,omitempty"`
}

type withEmbedded struct {
	Base
	Name string
	Tags []string `toon:"tags"`
}

type celsius float64

func (c celsius) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"unit": "C", "value": float64(c)})
}

type level int

func (l level) MarshalText() ([]byte, error) { return []byte(strings.Repeat("*", int(l))), nil }

type node struct {
	Name string `json:"name"`
	Next *node  `json:"next,omitempty"`
}

func TestMarshal(t *testing.T) {
	t.Parallel()
	n := 5
	tests := []struct {
		name string
		in   any
		opts []EncodeOption
		want string
	}{
		{name: "action struct with toon tags", in: action{Tool: "read_file", Path: "cmd/core/main.go", StartLine: 12, Internal: "x"},
			want: "tool: read_file\npath: cmd/core/main.go\nstart_line: 12"},
		{name: "omitempty drops zero values", in: action{Tool: "list_dir", Path: "."},
			want: "tool: list_dir\npath: ."},
		{name: "multi-line content is quoted and escaped", in: action{Tool: "write_file", Path: "a.go", Content: "package a\n\n\tfunc A() {}\n"},
			want: "tool: write_file\npath: a.go\ncontent: \"package a\\n\\n\\tfunc A() {}\\n\""},
		{name: "struct slice becomes tabular", in: []dirEntry{{"a.go", "file", 12}, {"docs", "dir", 0}},
			want: "[2]{name,type,size}:\n  a.go,file,12\n  docs,dir,0"},
		{name: "tabular cells quote the delimiter", in: map[string]any{"files": []dirEntry{{"a,b", "file", 1}}},
			want: "files[1]{name,type,size}:\n  \"a,b\",file,1"},
		{name: "pipe delimiter", in: map[string]any{"files": []dirEntry{{"a,b", "file", 1}}}, opts: []EncodeOption{WithDelimiter(Pipe)},
			want: "files[1|]{name|type|size}:\n  a,b|file|1"},
		{name: "tab delimiter and indent 4", in: map[string]any{"d": map[string]any{"xs": []int{1, 2}}}, opts: []EncodeOption{WithDelimiter(Tab), EncodeIndent(4)},
			want: "d:\n    xs[2\t]: 1\t2"},
		{name: "map keys sorted", in: map[string]int{"b": 2, "a": 1, "c": 3},
			want: "a: 1\nb: 2\nc: 3"},
		{name: "integer map keys", in: map[int]string{10: "x", 2: "y"},
			want: "\"10\": x\n\"2\": y"},
		{name: "Object keeps order", in: Object{{"z", 1}, {"a", Object{{"y", true}, {"b", nil}}}},
			want: "z: 1\na:\n  y: true\n  b: null"},
		{name: "embedded struct fields are promoted", in: withEmbedded{Base: Base{ID: 7}, Name: "n", Tags: []string{"x", "- y"}},
			want: "id: 7\nName: n\ntags[2]: x,\"- y\""},
		{name: "nil slice and pointer are null", in: struct {
			S []int
			P *int
			Q *int
		}{Q: &n}, want: "S: null\nP: null\nQ: 5"},
		{name: "empty slice and empty map", in: struct {
			S []int
			M map[string]int
		}{S: []int{}, M: map[string]int{}}, want: "S: []\nM:"},
		{name: "non-uniform objects use list form", in: []any{map[string]any{"a": 1}, map[string]any{"b": []any{1, map[string]any{}}}},
			want: "[2]:\n  - a: 1\n  - b[2]:\n      - 1\n      -"},
		{name: "array of arrays", in: [][]string{{"a"}, {}},
			want: "[2]:\n  - [1]: a\n  - [0]:"},
		{name: "bytes are base64", in: map[string]any{"b": []byte("hi")}, want: "b: aGk="},
		{name: "time uses RFC 3339", in: map[string]any{"t": time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)},
			want: "t: \"2024-05-06T07:08:09Z\""},
		{name: "json.Marshaler output is normalized", in: map[string]any{"temp": celsius(21.5)},
			want: "temp:\n  unit: C\n  value: 21.5"},
		{name: "TextMarshaler becomes a string", in: []level{2, 0}, want: "[2]: **,\"\""},
		{name: "NaN and infinities are null", in: []float64{math.NaN(), math.Inf(1), math.Inf(-1)},
			want: "[3]: null,null,null"},
		{name: "canonical numbers", in: []any{1e6, 1e-6, 1e-7, 1.5e21, math.Copysign(0, -1), 0.1, float32(0.1), uint64(math.MaxUint64), json.Number("1.50E+2"), Number("-0.0")},
			want: "[10]: 1000000,0.000001,1e-7,1.5e+21,0,0.1,0.1,18446744073709551615,150,0"},
		{name: "strings that need quotes", in: []string{"", " x", "x ", "true", "null", "42", "1e-6", "05", "a:b", "[x]", "{x}", "-", "-x", "a\"b", `a\b`, "a\tb"},
			want: "[16]: \"\",\" x\",\"x \",\"true\",\"null\",\"42\",\"1e-6\",\"05\",\"a:b\",\"[x]\",\"{x}\",\"-\",\"-x\",\"a\\\"b\",\"a\\\\b\",\"a\\tb\""},
		{name: "strings that stay bare", in: []string{"hello world", "café", "a-b", "x.y", "1a", "🚀"},
			want: "[6]: hello world,café,a-b,x.y,1a,🚀"},
		{name: "keys that need quotes", in: Object{{"my-key", 1}, {"", 2}, {"1a", 3}, {"a b", []int{}}},
			want: "\"my-key\": 1\n\"\": 2\n\"1a\": 3\n\"a b\": []"},
		{name: "root primitive", in: "hello", want: "hello"},
		{name: "root empty object", in: struct{}{}, want: ""},
		{name: "root empty array", in: []int{}, want: "[]"},
		{name: "key folding", in: Object{{"a", Object{{"b", Object{{"c", 1}}}}}, {"x", 2}}, opts: []EncodeOption{KeyFolding(true)},
			want: "a.b.c: 1\nx: 2"},
		{name: "key folding with flatten depth", in: Object{{"a", Object{{"b", Object{{"c", 1}}}}}}, opts: []EncodeOption{KeyFolding(true), FlattenDepth(2)},
			want: "a.b:\n  c: 1"},
		{name: "pointer chain", in: &node{Name: "a", Next: &node{Name: "b"}},
			want: "name: a\nnext:\n  name: b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Marshal(tc.in, tc.opts...)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tc.want {
				t.Fatalf("Marshal:\n got  %q\n want %q", got, tc.want)
			}
		})
	}
}

func TestMarshalErrors(t *testing.T) {
	t.Parallel()
	cyclic := &node{Name: "loop"}
	cyclic.Next = cyclic
	tests := []struct {
		name string
		in   any
		opts []EncodeOption
		want string
	}{
		{name: "channel", in: map[string]any{"c": make(chan int)}, want: "toon: unsupported type: chan int"},
		{name: "function", in: []any{func() {}}, want: "toon: unsupported type: func()"},
		{name: "complex", in: complex(1, 2), want: "toon: unsupported type: complex128"},
		{name: "cycle", in: cyclic, want: "toon: unsupported value: nesting deeper than 10000 levels (cyclic value?)"},
		{name: "invalid json.Number", in: json.Number("12abc"), want: `toon: unsupported value: invalid number literal "12abc"`},
		{name: "duplicate Object key", in: Object{{"a", 1}, {"a", 2}}, want: `toon: unsupported value: object has duplicate key "a"`},
		{name: "bad delimiter", in: 1, opts: []EncodeOption{WithDelimiter(';')}, want: "toon: invalid delimiter ';': use Comma, Tab or Pipe"},
		{name: "bad indent", in: 1, opts: []EncodeOption{EncodeIndent(0)}, want: "toon: indent must be at least 1, got 0"},
		{name: "negative flatten depth", in: 1, opts: []EncodeOption{FlattenDepth(-1)}, want: "toon: flatten depth must not be negative, got -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := Marshal(tc.in, tc.opts...)
			if err == nil {
				t.Fatalf("Marshal succeeded with %q, want error %q", out, tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("error:\n got  %q\n want %q", err, tc.want)
			}
		})
	}
	var ute *UnsupportedTypeError
	if _, err := Marshal(make(chan int)); !errors.As(err, &ute) {
		t.Fatalf("channel error is %T, want *UnsupportedTypeError", err)
	}
}

// TestMarshalRoundTrip checks that Unmarshal(Marshal(v)) reproduces v.
func TestMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	type listing struct {
		Path    string     `toon:"path"`
		Entries []dirEntry `toon:"entries"`
		Meta    Object     `toon:"meta"`
	}
	in := listing{
		Path:    "src/app",
		Entries: []dirEntry{{"main.go", "file", 1024}, {"has, comma", "file", 0}, {"true", "dir", -1}},
		Meta:    Object{{"z", "last"}, {"a", []any{int64(1), 2.5, "x", nil, true}}},
	}
	data, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out listing
	if err := Unmarshal(data, &out); err != nil {
		t.Fatalf("Unmarshal(%q): %v", data, err)
	}
	a, _ := Marshal(out)
	if string(a) != string(data) {
		t.Fatalf("round trip differs:\n%s\n---\n%s", data, a)
	}
}
