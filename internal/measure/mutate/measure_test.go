package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A module of one rule and its test: the mutant its test catches is
// killed, the one it does not survives, and one that does not compile is
// not counted. The rule's file is never written.
func TestMeasureModule(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"targets.txt": "r/r.go Positive\n",
		"r/r.go": `package r

// Positive reports whether n is above zero.
func Positive(n int) bool {
	x := n
	_ = x
	if n > 0 {
		return true
	}
	return false
}
`,
		"r/r_test.go": `package r

import "testing"

func TestPositive(t *testing.T) {
	if !Positive(1) || Positive(-1) {
		t.Fatal("wrong")
	}
}
`,
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errs bytes.Buffer
	err := run(t.Context(), []string{"-root", root, "-targets", "targets.txt", "-half", "all", "-timeout", time.Minute.String()}, &out, &errs)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errs.String())
	}
	// The returns' mutants are killed; > -> >= survives (the test never
	// asks about 0); removing _ = x leaves x unused: it does not compile
	// and is not counted.
	text := out.String()
	if !strings.Contains(text, "survivors:\n  r/r.go:7:7 boundary > -> >=\n") {
		t.Errorf("the survivor is not listed:\n%s", text)
	}
	var total []string
	for line := range strings.Lines(text) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "total" {
			total = f
		}
	}
	if want := []string{"total", "3", "2", "1", "66.7%"}; !slices.Equal(total, want) {
		t.Errorf("total %q, want %q:\n%s", total, want, text)
	}
	if b, err := os.ReadFile(filepath.Join(root, "r", "r.go")); err != nil || string(b) != files["r/r.go"] {
		t.Errorf("the rule's file changed: %q, %v", b, err)
	}
}
