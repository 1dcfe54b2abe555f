package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"slices"
	"strings"
	"testing"
)

func parseSample(t *testing.T) (*token.FileSet, *ast.File, *types.Info, []byte) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "testdata/sample.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{}).Check("sample", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/sample.go")
	if err != nil {
		t.Fatal(err)
	}
	return fset, f, info, src
}

func TestMutants(t *testing.T) {
	fset, f, info, src := parseSample(t)
	got := mutants(fset, f, "testdata/sample.go", info, []string{"rule"})
	var ops []string
	for _, m := range got {
		ops = append(ops, m.String())
	}
	want := []string{
		"testdata/sample.go:4:7 boundary < -> <=",
		"testdata/sample.go:4:11 logical && -> ||",
		"testdata/sample.go:4:14 not !x -> x",
		"testdata/sample.go:5:10 return true -> false",
		"testdata/sample.go:7:9 arithmetic + -> -",
		"testdata/sample.go:8:2 remove assignment",
		"testdata/sample.go:8:10 string -> \"\"",
		"testdata/sample.go:9:2 remove call",
		"testdata/sample.go:11:9 boundary >= -> >",
		"testdata/sample.go:11:14 logical || -> &&",
		"testdata/sample.go:11:19 negation == -> !=",
		"testdata/sample.go:12:3 remove assignment",
		"testdata/sample.go:14:9 return false -> true",
	}
	if !slices.Equal(ops, want) {
		t.Fatalf("mutants:\n%s\nwant:\n%s", strings.Join(ops, "\n"), strings.Join(want, "\n"))
	}
	// The string + is concatenation: never made a -. untouched is not a
	// target: its > stays.
	lines := strings.Split(string(src), "\n")
	applied := map[string]string{
		"testdata/sample.go:4:7 boundary < -> <=":      "\tif a <= b && !ok {",
		"testdata/sample.go:4:14 not !x -> x":          "\tif a < b && ok {",
		"testdata/sample.go:5:10 return true -> false": "\t\treturn false",
		"testdata/sample.go:7:9 arithmetic + -> -":     "\tn := a - b",
		"testdata/sample.go:8:2 remove assignment":     "\t",
		"testdata/sample.go:8:10 string -> \"\"":       "\ts = s + \"\"",
		"testdata/sample.go:9:2 remove call":           "\t",
		"testdata/sample.go:11:19 negation == -> !=":   "\tcase a >= n || a != b:",
	}
	for _, m := range got {
		want, ok := applied[m.String()]
		if !ok {
			continue
		}
		out := strings.Split(string(m.apply(src)), "\n")
		if len(out) != len(lines) || out[m.Line-1] != want {
			t.Errorf("%s: line %d is %q, want %q", m, m.Line, out[m.Line-1], want)
		}
		for i := range lines {
			if i != m.Line-1 && out[i] != lines[i] {
				t.Errorf("%s changed line %d too: %q", m, i+1, out[i])
			}
		}
	}
}

// The split and the sample are fixed: the same key lands in the same
// half whatever else changes, about half each way.
func TestHeldSplitIsFixed(t *testing.T) {
	m := mutant{File: "gh/authorize.go", Line: 30, Col: 10, Operator: "negation == -> !="}
	if m.Held() != (m.hash()%2 == 1) {
		t.Fatal("Held is not the hash's low bit")
	}
	if got, want := m.hash(), uint32(0); got == want {
		t.Fatal("hash is zero")
	}
	held, sampled := 0, 0
	for line := range 1000 {
		m.Line = line
		if m.Held() {
			held++
		}
		if m.Sampled(2) {
			sampled++
		}
		if !m.Sampled(1) {
			t.Fatal("a sample of one in one left a mutant out")
		}
	}
	if held < 400 || held > 600 || sampled < 400 || sampled > 600 {
		t.Fatalf("of 1000 mutants %d held out and %d sampled, want about half each", held, sampled)
	}
}

func TestReadTargets(t *testing.T) {
	in := "# comment\n\nsandbox/lang/policy.go CheckProject checkGo\ngh/pulls.go Fork -run=^TestPullRequestFork$ -skip=Slow\n"
	got, err := readTargets(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []target{
		{file: "sandbox/lang/policy.go", funcs: []string{"CheckProject", "checkGo"}},
		{file: "gh/pulls.go", funcs: []string{"Fork"}, run: "^TestPullRequestFork$", skip: "Slow"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].file != want[i].file || !slices.Equal(got[i].funcs, want[i].funcs) || got[i].run != want[i].run || got[i].skip != want[i].skip {
			t.Errorf("target %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"gh/pulls.go\n", "gh/pulls Fork\n"} {
		if _, err := readTargets(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
