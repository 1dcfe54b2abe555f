package toon

import (
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"testing"
	"time"
)

type readFile struct {
	Tool      string `toon:"tool"`
	Path      string `toon:"path"`
	StartLine int    `toon:"start_line"`
}

type listing struct {
	Path    string     `json:"path"`
	Entries []dirEntry `json:"entries"`
	Total   *int       `json:"total"`
}

type tagged struct {
	A int     `toon:"alpha" json:"beta"`
	B string  `json:"beta_b"`
	C float32 `toon:"c"`
	D uint8
	E []byte
	F [2]int
	G map[string]int
	H map[int]bool
	I any
	J Object
	K Number
	L time.Time
	M *big.Int
	N json.RawMessage
	O *readFile
}

func intPtr(n int) *int { return &n }

func TestUnmarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		into func() any // returns a pointer to a fresh destination
		want any
	}{
		{name: "read_file action", in: "tool: read_file\npath: cmd/core/main.go\nstart_line: 12",
			into: func() any { return new(readFile) },
			want: &readFile{Tool: "read_file", Path: "cmd/core/main.go", StartLine: 12}},
		{name: "keys match case-insensitively and unknown keys are ignored", in: "TOOL: grep\nPath: x\nextra: 1",
			into: func() any { return new(readFile) },
			want: &readFile{Tool: "grep", Path: "x"}},
		{name: "tabular listing into slice of structs", in: "path: .\nentries[2]{name,type,size}:\n  a.go,file,12\n  docs,dir,0\ntotal: 2",
			into: func() any { return new(listing) },
			want: &listing{Path: ".", Entries: []dirEntry{{"a.go", "file", 12}, {"docs", "dir", 0}}, Total: intPtr(2)}},
		{name: "null pointer", in: "path: x\ntotal: null",
			into: func() any { return &listing{Total: intPtr(9)} },
			want: &listing{Path: "x"}},
		{name: "tags, kinds and hooks", in: "alpha: 1\nbeta_b: b\nc: 1.5\nD: 255\nE: aGk=\nF[1]: 7\nG:\n  x: 1\nH:\n  \"3\": true\n" +
			"I[2]: 1,x\nJ:\n  z: 1\n  a: 2\nK: 1.50\nL: \"2024-05-06T07:08:09Z\"\nM: 123456789012345678901234567890\nN:\n  k[1]: v\nO:\n  tool: t",
			into: func() any { return new(tagged) },
			want: &tagged{A: 1, B: "b", C: 1.5, D: 255, E: []byte("hi"), F: [2]int{7, 0}, G: map[string]int{"x": 1},
				H: map[int]bool{3: true}, I: []any{int64(1), "x"}, J: Object{{"z", int64(1)}, {"a", int64(2)}}, K: "1.50",
				L: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), M: mustBig("123456789012345678901234567890"),
				N: json.RawMessage(`{"k":["v"]}`), O: &readFile{Tool: "t"}}},
		{name: "integer-valued exponent into int", in: "start_line: 1e3",
			into: func() any { return new(readFile) },
			want: &readFile{StartLine: 1000}},
		{name: "into any", in: "a: 1\nb[2]: 2.5,x",
			into: func() any { return new(any) },
			want: ptrTo[any](Object{{"a", int64(1)}, {"b", []any{2.5, "x"}}})},
		{name: "into map of any", in: "b: true\na: null",
			into: func() any { return new(map[string]any) },
			want: &map[string]any{"a": nil, "b": true}},
		{name: "root array into slice", in: "[3]: 1,2,3",
			into: func() any { return new([]int) },
			want: &[]int{1, 2, 3}},
		{name: "root primitive into string", in: "hello world",
			into: func() any { return new(string) },
			want: ptrTo("hello world")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.into()
			if err := Unmarshal([]byte(tc.in), got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Unmarshal:\n got  %#v\n want %#v", got, tc.want)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func mustBig(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return n
}

func TestUnmarshalErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		into any
		opts []DecodeOption
		want string
	}{
		{name: "string into int", in: "start_line: twelve", into: new(readFile),
			want: `toon: cannot unmarshal string "twelve" into Go value of type int at start_line`},
		{name: "fraction into int", in: "start_line: 1.5", into: new(readFile),
			want: "toon: cannot unmarshal number 1.5 into Go value of type int at start_line"},
		{name: "overflow", in: "D: 256", into: new(tagged),
			want: "toon: cannot unmarshal number 256 into Go value of type uint8 at D"},
		{name: "negative into unsigned", in: "D: -1", into: new(tagged),
			want: "toon: cannot unmarshal number -1 into Go value of type uint8 at D"},
		{name: "object into string", in: "tool:\n  x: 1", into: new(readFile),
			want: "toon: cannot unmarshal object into Go value of type string at tool"},
		{name: "nested path", in: "entries[2]{name,type,size}:\n  a,file,1\n  b,dir,big", into: new(listing),
			want: `toon: cannot unmarshal string "big" into Go value of type int64 at entries[1].size`},
		{name: "unknown field", in: "tool: x\nline: 3", into: new(readFile), opts: []DecodeOption{DisallowUnknownFields()},
			want: `toon: unknown field "line" for type toon.readFile`},
		{name: "syntax error passes through", in: "tool: x\ntool: y", into: new(readFile),
			want: `line 2: duplicate key "tool" (first defined on line 1)`},
		{name: "not a pointer", in: "a: 1", into: readFile{},
			want: "toon: Unmarshal(non-pointer toon.readFile)"},
		{name: "nil pointer", in: "a: 1", into: (*readFile)(nil),
			want: "toon: Unmarshal(nil *toon.readFile)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Unmarshal([]byte(tc.in), tc.into, tc.opts...)
			if err == nil {
				t.Fatalf("Unmarshal succeeded, want error %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("error:\n got  %q\n want %q", err, tc.want)
			}
		})
	}
	var ute *UnmarshalTypeError
	if err := Unmarshal([]byte("start_line: x"), new(readFile)); !errors.As(err, &ute) || ute.Path != "start_line" {
		t.Fatalf("got %T %v, want *UnmarshalTypeError at start_line", err, err)
	}
}

func TestUnmarshalUseNumber(t *testing.T) {
	t.Parallel()
	var v any
	if err := Unmarshal([]byte("a: 1\nb: 2.50"), &v, UseNumber()); err != nil {
		t.Fatal(err)
	}
	want := Object{{"a", Number("1")}, {"b", Number("2.50")}}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("got %#v, want %#v", v, want)
	}
}
