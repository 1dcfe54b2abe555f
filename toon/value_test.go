package toon

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestObjectMethods(t *testing.T) {
	t.Parallel()
	var o Object
	o.Set("b", 1)
	o.Set("a", 2)
	o.Set("b", 3)
	if got := o.Keys(); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Fatalf("Keys = %v", got)
	}
	if v, ok := o.Get("b"); !ok || v != 3 {
		t.Fatalf("Get(b) = %v, %v", v, ok)
	}
	if _, ok := o.Get("zz"); ok {
		t.Fatal("Get(zz) found a value")
	}
	o.Delete("b")
	if o.Len() != 1 || o[0].Key != "a" {
		t.Fatalf("after Delete: %v", o)
	}
}

func TestObjectJSON(t *testing.T) {
	t.Parallel()
	var o Object
	in := `{"z":1,"a":{"y":[1,2.5,"s",null,true],"b":{}},"n":1e400}`
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	want := Object{{"z", int64(1)}, {"a", Object{{"y", []any{int64(1), 2.5, "s", nil, true}}, {"b", Object{}}}}, {"n", Number("1e400")}}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("UnmarshalJSON:\n got  %#v\n want %#v", o, want)
	}
	out, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Fatalf("MarshalJSON = %s, want %s", out, in)
	}
	if err := json.Unmarshal([]byte(`[1]`), &o); err == nil {
		t.Fatal("UnmarshalJSON of an array succeeded")
	}
}

func TestEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{name: "int and float", a: int64(1), b: 1.0, want: true},
		{name: "number forms", a: Number("1.50"), b: json.Number("15e-1"), want: true},
		{name: "negative zero", a: Number("-0"), b: int64(0), want: true},
		{name: "different numbers", a: 1.5, b: int64(1), want: false},
		{name: "number vs string", a: int64(1), b: "1", want: false},
		{name: "key order matters", a: Object{{"a", 1}, {"b", 2}}, b: Object{{"b", 2}, {"a", 1}}, want: false},
		{name: "nested equal", a: []any{Object{{"a", nil}}}, b: []any{Object{{"a", nil}}}, want: true},
		{name: "array length", a: []any{1}, b: []any{1, 2}, want: false},
		{name: "nil vs empty object", a: nil, b: Object{}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Equal(tc.a, tc.b); got != tc.want {
				t.Fatalf("Equal(%#v, %#v) = %v", tc.a, tc.b, got)
			}
		})
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	if i, err := Number("1e3").Int64(); err != nil || i != 1000 {
		t.Fatalf("Int64(1e3) = %d, %v", i, err)
	}
	if _, err := Number("1.5").Int64(); err == nil {
		t.Fatal("Int64(1.5) succeeded")
	}
	if _, err := Number("9223372036854775808").Int64(); err == nil {
		t.Fatal("Int64 overflow succeeded")
	}
	if f, err := Number("2.5").Float64(); err != nil || f != 2.5 {
		t.Fatalf("Float64 = %v, %v", f, err)
	}
	if Number("7").String() != "7" {
		t.Fatal("String")
	}
}
