package contract

import (
	"strings"
	"testing"

	"github.com/coreagent/core/session/tools"
)

// FuzzEnvironmentCause: whatever a check printed, the classifier does not
// panic, names a cause only with a bounded evidence line drawn from the
// output, and never calls a pass the environment's.
func FuzzEnvironmentCause(f *testing.F) {
	f.Add(1, "sh: 1: xo: not found\n")
	f.Add(127, "")
	f.Add(1, "E   ModuleNotFoundError: No module named 'a.b.c'\n")
	f.Add(1, "Error: Cannot find module '/w/node_modules/x/index.js'\n")
	f.Add(101, "warning: spurious network error (2 tries remaining): [6] Couldn't resolve host name\n")
	f.Fuzz(func(t *testing.T, exit int, output string) {
		local := func(name string) bool { return strings.HasPrefix(name, "l") }
		cause, evidence := environmentCause(CheckResult{Exit: exit}, output, false, local)
		if cause == "" && evidence != "" {
			t.Fatalf("evidence %q without a cause from %q", evidence, output)
		}
		if len([]rune(evidence)) > maxEvidence {
			t.Fatalf("evidence of %d runes from %q", len([]rune(evidence)), output)
		}
		if cause != "" && exit != 127 && evidence == "" {
			t.Fatalf("cause %q without evidence from %q", cause, output)
		}
		if c, _ := environmentCause(CheckResult{Exit: 0, Passed: true}, output, false, local); c != "" {
			t.Fatalf("a pass called the environment's: %q", c)
		}
	})
}

// FuzzOwnRunContradicts: whatever the model's summary says, the decision
// does not panic, and it names a failed run only beside a claim.
func FuzzOwnRunContradicts(f *testing.F) {
	f.Add("All tests pass.", "pytest", 1)
	f.Add("go test ./... passes", "go test ./...", -1)
	f.Add("The tests do not pass yet.", "pytest", 1)
	f.Add("ok.\n\n!?", "", 0)
	f.Fuzz(func(t *testing.T, summary, command string, exit int) {
		got := OwnRunContradicts(summary, OwnRuns{{Command: command, ExitCode: exit}}, nil)
		switch {
		case got != "" && exit == 0:
			t.Fatalf("a passing run named: %q", got)
		case got != "" && successClaim(summary) == "":
			t.Fatalf("no claim in %q, yet %q", summary, got)
		}
		_ = OwnRuns{}.Add(tools.Verification{Command: command})
	})
}
