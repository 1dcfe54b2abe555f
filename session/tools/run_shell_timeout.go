package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/lang"
)

// What run_shell says of a command core stopped at its time: where the
// time went (compiling, then running), and what helps, never a narrower
// command than the one that ran.

// killed tells the model that core killed its command at the shell
// timeout (or at the build ceiling), where its time went, and what to do
// about it.
func killed(command string, r sandbox.Result, timeout, ceiling time.Duration) string {
	ran := max(r.Duration, timeout)
	s := fmt.Sprintf("core killed this command: it ran for %s, past the shell timeout of %s, so its output above is incomplete and it proves nothing.", round(ran), timeout)
	if r.AtCeiling {
		s = fmt.Sprintf("core killed this command: it ran for %s, up to the build ceiling of %s (--build-ceiling), so its output above is incomplete and it proves nothing.", round(ran), ceiling)
	}
	if where := timeWent(r.Duration, r.Built, r.AtCeiling); where != "" {
		s += " " + where
	}
	if r.Waited > 0 {
		s += fmt.Sprintf(" Before it started, it waited %s for the module download core's warm-up had under way; that wait did not count against the timeout.", round(r.Waited))
	}
	if r.Built > 0 {
		s += " What it finished compiling is in the build cache now: the same command again goes on from there."
	}
	if narrower := NarrowerCommand(splitOrNil(command)); narrower != "" {
		s += " " + narrower
	}
	return s + " The user can raise the limit with --shell-timeout."
}

// timeWent says where a stopped command's time went: "It compiled for
// 1m50s (not counted against the timeout), then ran for 2m0s."; "" when
// nothing of it compiled and the ceiling did not stop it (it ran for all
// its time).
func timeWent(ran, built time.Duration, atCeiling bool) string {
	switch {
	case atCeiling:
		return fmt.Sprintf("It was still compiling: it compiled for %s of it (a compiler at work among its processes), which the shell timeout does not count but the build ceiling does; the user can raise it with --build-ceiling.", round(built))
	case built > 0:
		return fmt.Sprintf("It compiled for %s (not counted against the timeout), then ran for %s.", round(built), round(max(ran-built, 0)))
	}
	return ""
}

// NarrowerCommand suggests a narrower command than argv, or says nothing
// when argv is already the narrowest of its kind (one package, one test,
// one file) or core does not know how to narrow it.
func NarrowerCommand(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	sub := ""
	if len(argv) > 1 {
		sub = argv[1]
	}
	switch {
	case argv[0] == "go" && sub == "test":
		pkgs, oneTest := goTestTargets(argv[2:])
		if oneTest {
			return ""
		}
		if len(pkgs) <= 1 && !strings.Contains(strings.Join(pkgs, ""), "...") {
			return "" // one package already: its own tests take the time
		}
		return "A narrower command takes less: one package (go test ./pkg) or one test (go test -run TestName ./pkg)."
	case argv[0] == "pytest" || len(argv) >= 3 && sub == "-m" && argv[2] == "pytest":
		for _, a := range argv[1:] {
			if strings.Contains(a, "::") || a == "-k" || strings.HasPrefix(a, "-k") {
				return ""
			}
		}
		return "A narrower command takes less: one file (pytest tests/test_x.py) or one test (pytest tests/test_x.py::test_name)."
	case argv[0] == "cargo" && sub == "test":
		for _, a := range argv[2:] {
			if a == "--" {
				break
			}
			if !strings.HasPrefix(a, "-") {
				return "" // a test name filter
			}
		}
		return "A narrower command takes less: one test (cargo test test_name)."
	}
	return ""
}

// goTestTargets reads go test's arguments: the packages named, and
// whether a -run pattern picks tests. Flags that take a value take the
// next argument unless given with "=".
func goTestTargets(args []string) (pkgs []string, oneTest bool) {
	valued := map[string]bool{"run": true, "skip": true, "count": true, "timeout": true, "tags": true, "p": true,
		"parallel": true, "cpu": true, "bench": true, "benchtime": true, "coverprofile": true, "covermode": true,
		"coverpkg": true, "exec": true, "o": true, "list": true, "shuffle": true, "fuzz": true, "fuzztime": true,
		"ldflags": true, "gcflags": true, "mod": true, "modfile": true, "C": true, "vet": true, "outputdir": true,
		"cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true, "trace": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-args" || a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			pkgs = append(pkgs, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "run" || name == "list" {
			oneTest = true
		}
		if valued[name] && !hasValue {
			i++
		}
	}
	return pkgs, oneTest
}

// splitOrNil splits a command as the sandbox does; nil when it cannot.
func splitOrNil(command string) []string {
	argv, err := lang.SplitCommand(command)
	if err != nil {
		return nil
	}
	return argv
}

// builtNote is the progress line's word on a stopped command's compile:
// ", after compiling for 1m50s (not counted)", or that the build ceiling
// stopped it.
func builtNote(r sandbox.Result, ceiling time.Duration) string {
	switch {
	case r.AtCeiling:
		return fmt.Sprintf(", and was still compiling at the build ceiling of %s (--build-ceiling)", ceiling)
	case r.Built > 0:
		return fmt.Sprintf(", after compiling for %s (not counted)", round(r.Built))
	}
	return ""
}

// buildCeiling is the ceiling of a run_shell command that compiles.
func (e *Env) buildCeiling() time.Duration {
	if e.BuildCeiling > 0 {
		return e.BuildCeiling
	}
	return boxagent.BuildCeiling(e.ShellTimeout)
}
