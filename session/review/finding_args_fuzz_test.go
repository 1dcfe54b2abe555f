package review

import (
	"errors"
	"strings"
	"testing"

	"github.com/coreagent/core/session/tools"
)

// FuzzFindingArgs: whatever the model sends, the arguments are a finding
// whose file, line and claim are set, with a reproduction whose four parts
// are all set and whose command is a plain argv, or an argument's error
// (which the model can fix); never a panic.
func FuzzFindingArgs(f *testing.F) {
	f.Add("calc.go", int64(3), "Add subtracts", "calc/repro_test.go", "package calc\n", "go test ./calc -run TestRepro", "want 5")
	f.Add("calc.go", int64(0), "c", "", "", "", "")
	f.Add(" ", int64(-1), "c", "p", "", "go test $(x)", " ")
	f.Add("a.go", int64(1), "c", "../x", "y", "  go   test  ", "z")
	f.Fuzz(func(t *testing.T, file string, line int64, claim, path, content, command, expect string) {
		args := tools.Args{"file": file, "line": line, "claim": claim}
		for k, v := range map[string]string{"path": path, "content": content, "command": command, "expect": expect} {
			if v != "" {
				args[k] = v
			}
		}
		got, err := findingArgs(args)
		if err != nil {
			var ae *tools.ArgError
			if !errors.As(err, &ae) || ae.Tool != FindingName {
				t.Fatalf("an error the model cannot act on: %v", err)
			}
			return
		}
		if got.File == "" || got.Claim == "" || got.Line < 1 {
			t.Fatalf("a finding without its place or claim: %+v", got)
		}
		if r := got.Reproduction; r != nil {
			if r.Path == "" || r.Content == "" || len(r.Command) == 0 || strings.TrimSpace(r.Expect) == "" {
				t.Fatalf("half a reproduction: %+v", r)
			}
			for _, a := range r.Command {
				if a == "" || strings.ContainsAny(a, " \t\n|;&$`") {
					t.Fatalf("an argv that is not plain: %q", r.Command)
				}
			}
		} else if path+content+command+expect != "" {
			t.Fatalf("a reproduction's parts were dropped: %+v", got)
		}
	})
}
