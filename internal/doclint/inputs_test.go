package doclint

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestActionInputsDocumented: every input action.yml declares is named,
// as `name`, on docs/action.md, the Action's page; a new input without
// its words there fails here.
func TestActionInputsDocumented(t *testing.T) {
	inputs, err := actionInputs(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 20 {
		t.Fatalf("found %d inputs in action.yml: its inputs are no longer two-space-indented keys under inputs:; teach actionInputs the new shape", len(inputs))
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "action.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		if !strings.Contains(string(b), "`"+in+"`") {
			t.Errorf("docs/action.md does not name the input %s: add it to the inputs paragraph", in)
		}
	}
}

var inputKey = regexp.MustCompile(`(?m)^  ([a-z][a-z0-9_]*):\s*$`)

// actionInputs are the keys of action.yml's inputs: section, read as
// text (the file's shape is ours: two-space-indented keys).
func actionInputs(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := string(b)
	start := strings.Index(s, "\ninputs:\n")
	if start < 0 {
		return nil, os.ErrNotExist
	}
	s = s[start:]
	if end := strings.Index(s[1:], "\noutputs:\n"); end >= 0 {
		s = s[:end+1]
	}
	var out []string
	for _, m := range inputKey.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out, nil
}
