package lang

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/manifest"
)

// Verdict is the policy's answer for one command at one tier.
type Verdict int

const (
	// Refused: the command is not a verification command at this tier.
	Refused Verdict = iota
	// AllowedUnsandboxed: the command compiles but runs no workspace code,
	// so it may run without the sandbox. It still runs inside whenever the
	// sandbox is usable (defence in depth).
	AllowedUnsandboxed
	// AllowedSandboxed: the command runs workspace code, so it runs only
	// inside the sandbox.
	AllowedSandboxed
)

func (v Verdict) String() string {
	switch v {
	case AllowedUnsandboxed:
		return "allowed unsandboxed"
	case AllowedSandboxed:
		return "allowed sandboxed"
	}
	return "refused"
}

// Decision is the policy's full answer.
type Decision struct {
	Verdict Verdict
	// Network is set for the go mod sub-commands: they fetch modules and
	// write the module cache and go.mod/go.sum, so they run in the network
	// profile (confined, with the host's network and the workspace) when
	// the sandbox is usable, and on the host otherwise.
	Network bool
	// Reason says why a command was refused.
	Reason string
}

// Allowed reports whether the command may run unattended.
func (d Decision) Allowed() bool { return d.Verdict != Refused }

// metacharacters are the characters a shell would interpret. Verification
// commands are argv lists run without a shell, so a command text holding any
// of them was written for a shell and is not a verification command.
const metacharacters = ";|&$`><(){}[]*?~'\"\\!\n\r"

// SplitCommand splits a command text into an argv list on blanks. A text
// holding shell metacharacters, quoting, globbing or substitution is refused.
func SplitCommand(text string) ([]string, error) {
	if i := strings.IndexAny(text, metacharacters); i >= 0 {
		return nil, fmt.Errorf("%q is not a plain command: it holds the shell metacharacter %q; verification commands are argv lists, run without a shell", text, string(text[i]))
	}
	argv := strings.Fields(text)
	if len(argv) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	return argv, nil
}

// refusedGoFlags run a program of the caller's choosing, so they are refused
// at every tier: -compiler and -gccgoflags pick and steer another compiler.
var refusedGoFlags = []string{"toolexec", "exec", "vettool", "overlay", "compiler", "gccgoflags"}

// goModSubcommands are the go mod sub-commands that run no workspace code
// and change nothing but go.mod, go.sum and the module cache.
var goModSubcommands = []string{"download", "tidy", "verify", "why", "graph"}

// gofmtFlags are the gofmt flags that only report.
var gofmtFlags = []string{"-l", "-d", "-s", "-e"}

// Check answers, for a tier and an argv, whether the command may run
// unattended and where, without a workspace to look at: npm run and npx are
// held to their form only. Verify holds them to the workspace's package.json
// (CheckProject).
func Check(tier Tier, argv []string) Decision { return CheckProject(tier, argv, nil) }

// CheckProject is Check for a command to run in a workspace whose project
// (Detect) is p: npm run may run only a script package.json names, npx only
// a test runner one of its scripts names. A nil p knows no workspace.
func CheckProject(tier Tier, argv []string, p *Project) Decision {
	if len(argv) == 0 {
		return refuse("empty command")
	}
	if tier != TierBuild && tier != TierTest {
		return refuse("verification is off (--verify off): commands go to the approval gate")
	}
	for i, a := range argv {
		if strings.ContainsAny(a, metacharacters) && !testPattern(argv, i) {
			return refuse(fmt.Sprintf("argument %q holds a shell metacharacter; verification commands are argv lists, run without a shell", a))
		}
	}
	if strings.Contains(argv[0], "/") {
		return refuse(fmt.Sprintf("%q is a path; verification commands name a tool (go, pytest, npm, cargo), not a program in the workspace", argv[0]))
	}
	for _, a := range argv[1:] {
		if manifest.Escapes(a) {
			return refuse(fmt.Sprintf("argument %q names a path outside the workspace", a))
		}
	}
	if e, ok := EcosystemOf(argv[0]); ok {
		return e.check(tier, argv, p)
	}
	return refuse(fmt.Sprintf("%s is not a verification command at tier %s (allowed: %s)", argv[0], tier, allowedList(tier)))
}

func checkGo(tier Tier, argv []string) Decision {
	if len(argv) < 2 {
		return refuse("go needs a sub-command")
	}
	for i, a := range argv[2:] {
		f := flagName(a)
		if f != "" && slices.Contains(refusedGoFlags, f) {
			return refuse(fmt.Sprintf("go flag -%s runs a program of the caller's choosing and is never allowed", f))
		}
		// -ldflags=-extld=PROGRAM runs PROGRAM as the external linker, and
		// -extldflags hands it flags (-B, -wrapper) that run others.
		value, inline := strings.CutPrefix(strings.TrimLeft(a, "-"), f+"=")
		if !inline && 2+i+1 < len(argv) {
			value = argv[2+i+1]
		}
		if f == "ldflags" && strings.Contains(value, "extld") {
			return refuse("go flag -ldflags with -extld or -extldflags runs a program of the caller's choosing and is never allowed")
		}
	}
	switch sub := argv[1]; sub {
	case "build", "vet", "list":
		return Decision{Verdict: AllowedUnsandboxed}
	case "mod":
		if len(argv) < 3 || !slices.Contains(goModSubcommands, argv[2]) {
			got := "nothing"
			if len(argv) >= 3 {
				got = argv[2]
			}
			return refuse(fmt.Sprintf("go mod allows only %s, got %s", strings.Join(goModSubcommands, ", "), got))
		}
		return Decision{Verdict: AllowedUnsandboxed, Network: true}
	case "test":
		if tier != TierTest {
			return refuse("go test runs workspace code: it needs --verify test")
		}
		return Decision{Verdict: AllowedSandboxed}
	default:
		return refuse(fmt.Sprintf("go %s is not a verification command at tier %s (allowed: %s)", sub, tier, allowedList(tier)))
	}
}

func checkGofmt(argv []string) Decision {
	listed := false
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		if !slices.Contains(gofmtFlags, a) {
			return refuse(fmt.Sprintf("gofmt flag %s is not allowed: gofmt may only report (%s)", a, strings.Join(gofmtFlags, " ")))
		}
		listed = listed || a == "-l"
	}
	if !listed {
		return refuse("gofmt is allowed only as gofmt -l")
	}
	return Decision{Verdict: AllowedUnsandboxed}
}

func checkFlutter(tier Tier, argv []string) Decision {
	if len(argv) < 2 {
		return refuse("flutter needs a sub-command")
	}
	switch argv[1] {
	case "analyze":
		return Decision{Verdict: AllowedUnsandboxed}
	case "test":
		if tier != TierTest {
			return refuse("flutter test runs workspace code: it needs --verify test")
		}
		return Decision{Verdict: AllowedSandboxed}
	}
	return refuse(fmt.Sprintf("flutter %s is not a verification command at tier %s (allowed: %s)", argv[1], tier, allowedList(tier)))
}

// Allowance is one command a tier runs unattended, as the policy checks it.
type Allowance struct {
	// Command is how the command is written: "go build",
	// "go mod download|tidy".
	Command string
	// Sandboxed is set for commands that run workspace code: they run only
	// inside the sandbox.
	Sandboxed bool
	// Ecosystem names the ecosystem the command belongs to.
	Ecosystem string
}

// Allowed lists the commands the tier runs unattended in any workspace, in
// the table's order; none for the off tier.
func Allowed(tier Tier) []Allowance { return AllowedIn(tier, nil) }

// AllowedIn lists the commands the tier runs unattended in a workspace whose
// project is p: the commands of the ecosystems found there (of every
// ecosystem when p is nil or found none), with the scripts package.json
// names, less those that start with a program the toolchain lacks
// (Locate). The prompt's rule is derived from it.
func AllowedIn(tier Tier, p *Project) []Allowance {
	if tier != TierBuild && tier != TierTest {
		return nil
	}
	var list []Allowance
	for _, e := range Ecosystems() {
		if p != nil && len(p.Ecosystems) > 0 && !p.Has(e.Name) {
			continue
		}
		for _, a := range e.allowed(tier, p) {
			if !offered(a, p) {
				continue
			}
			a.Ecosystem = e.Name
			list = append(list, a)
		}
	}
	return list
}

func allowedList(tier Tier) string {
	var names []string
	for _, a := range Allowed(tier) {
		names = append(names, a.Command)
	}
	return strings.Join(names, ", ")
}

// flagName returns the name of a flag argument ("-exec", "--exec=x" → "exec"),
// or "" when the argument is not a flag.
func flagName(a string) string {
	if !strings.HasPrefix(a, "-") {
		return ""
	}
	name := strings.TrimLeft(a, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	return name
}

// testNames is what go test's -run and -skip may hold beyond plain
// words: a pattern of test names, anchored and alternated
// (^(TestA|TestB)$, TestA/sub), and nothing a shell or a glob would read
// otherwise.
var testNames = regexp.MustCompile(`^[A-Za-z0-9_^$()|/.]+$`)

// testPattern reports whether argv[i] is the pattern of go test's -run or
// -skip (-run=P, or P after -run): one of test names only (testNames),
// which the harness writes to run a file's tests in one command.
func testPattern(argv []string, i int) bool {
	if len(argv) < 3 || argv[0] != "go" || argv[1] != "test" || i < 2 {
		return false
	}
	a := argv[i]
	for _, f := range []string{"-run", "-skip", "--run", "--skip"} {
		if v, ok := strings.CutPrefix(a, f+"="); ok {
			return testNames.MatchString(v)
		}
		if argv[i-1] == f {
			return testNames.MatchString(a)
		}
	}
	return false
}

func refuse(reason string) Decision { return Decision{Verdict: Refused, Reason: reason} }
