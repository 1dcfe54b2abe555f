package review

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/testclass"
	"github.com/coreagent/core/session/tools"
)

// The bounds on what a review's model may ask of the harness.
const (
	// MaxFindings is how many findings a review holds.
	MaxFindings = 20
	// MaxReproductions is how many reproductions the harness runs in a
	// review (each on the head and on the base).
	MaxReproductions = 30
	// maxClaim is the most bytes of a finding's claim.
	maxClaim = 4 << 10
)

// FindingName is the finding tool's name.
const FindingName = "finding"

// Reproducer judges a finding: runs its reproduction and says whether it
// is confirmed (Harness.Reproduce).
type Reproducer func(ctx context.Context, f Finding) (Finding, error)

// findingTool is the tool through which a review's model reports its
// findings, one a call, each judged by the harness as it comes.
type findingTool struct {
	reproduce Reproducer
	record    func([]Finding)

	mu       sync.Mutex
	findings []Finding
	runs     int
}

// FindingTool is the finding tool: each finding the model reports is
// judged by reproduce, and record is given the review's findings, in the
// order reported, after each (a finding reported again with the same
// file, line and claim replaces the earlier one in its place).
func FindingTool(reproduce Reproducer, record func([]Finding)) tools.Tool {
	return &findingTool{reproduce: reproduce, record: record}
}

func (*findingTool) Name() string { return FindingName }

func (*findingTool) Doc() string {
	return `finding: report one thing wrong with the change, with a reproduction that
shows it.
  tool: finding
  file: calc/calc.go
  line: 12
  claim: "Add subtracts: Add(2, 3) returns -1"
  path: calc/repro_test.go
  content: "package calc\n\nimport \"testing\"\n\nfunc TestAddRepro(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d\", got)\n\t}\n}\n"
  command: go test ./calc -run TestAddRepro
  expect: "Add(2, 3) = -1"
file and line are where the bug is, on the head. The reproduction is
optional (path is optional, content is optional, command is optional,
expect is optional) but its four go together: a test or script written at
path in a scratch copy of the head and of the base, and the command (a
verification command, no shell) that runs it. The harness runs
it on both; the finding is confirmed only when it fails on the head with
output containing expect, and passes (or fails otherwise) on the base.
The reply says what it did on each; report the same file, line and claim
again to replace a finding with a better reproduction.`
}

func (t *findingTool) Run(ctx context.Context, _ *tools.Env, args tools.Args) (tools.Result, error) {
	f, err := findingArgs(args)
	if err != nil {
		return tools.Result{}, err
	}
	target := fmt.Sprintf("%s:%d", f.File, f.Line)
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.index(f)
	switch {
	case at == len(t.findings) && at >= MaxFindings:
		return tools.Result{Output: fmt.Sprintf("finding: not recorded: the review holds %d findings, the most it takes; replace one (the same file, line and claim) or call done", MaxFindings), Target: target}, nil
	case f.Reproduction != nil && t.runs >= MaxReproductions:
		return tools.Result{Output: fmt.Sprintf("finding: not recorded: the harness has run %d reproductions, the most a review runs; report it without path, content, command and expect, or call done", MaxReproductions), Target: target}, nil
	case f.Reproduction != nil:
		t.runs++
	}
	judged, err := t.reproduce(ctx, f)
	if err != nil {
		return tools.Result{}, fmt.Errorf("reproduce the finding at %s: %w", target, err)
	}
	replaced := at < len(t.findings)
	if replaced {
		t.findings[at] = judged
	} else {
		t.findings = append(t.findings, judged)
	}
	t.record(append([]Finding(nil), t.findings...))
	return tools.Result{Output: observation(judged, at+1, replaced), Target: target}, nil
}

// index is where f goes among the findings: the place of the one with
// its file, line and claim, else the end.
func (t *findingTool) index(f Finding) int {
	for i, g := range t.findings {
		if g.File == f.File && g.Line == f.Line && g.Claim == f.Claim {
			return i
		}
	}
	return len(t.findings)
}

// findingArgs is the finding a call reports, or what is wrong with its
// arguments (a *tools.ArgError: the model can fix it).
func findingArgs(args tools.Args) (Finding, error) {
	var f Finding
	var err error
	if f.File, err = required(args, "file"); err != nil {
		return f, err
	}
	if why := testclass.BadPath(f.File); why != "" {
		return f, argError("file", fmt.Sprintf("must be a file's path from the repository's top, like calc/calc.go; %q is %s", f.File, why))
	}
	if f.Claim, err = required(args, "claim"); err != nil {
		return f, err
	}
	if len(f.Claim) > maxClaim {
		return f, argError("claim", fmt.Sprintf("is %d bytes; say it in at most %d", len(f.Claim), maxClaim))
	}
	if f.Line, err = args.OptionalInt("line", 0); err != nil {
		return f, withTool(err)
	}
	if f.Line < 1 {
		return f, argError("line", "is required: the line of file, on the head, where the bug is (1 or more)")
	}
	var r Reproduction
	given := 0
	for _, a := range []struct {
		name string
		to   *string
	}{{"path", &r.Path}, {"content", &r.Content}, {"command", nil}, {"expect", &r.Expect}} {
		v, err := args.OptionalString(a.name, "")
		if err != nil {
			return f, withTool(err)
		}
		if v != "" {
			given++
		}
		if a.to != nil {
			*a.to = v
		} else if v != "" {
			if r.Command, err = lang.SplitCommand(strings.TrimSpace(v)); err != nil {
				return f, argError("command", err.Error())
			}
		}
	}
	switch {
	case given == 0:
		return f, nil
	case given < 4:
		return f, argError(missing(r), "is missing: a reproduction needs path, content, command and expect together (or none of them, for a finding that is only listed)")
	case strings.TrimSpace(r.Expect) == "":
		return f, argError("expect", "must be the text the failure prints on the head, not blank")
	}
	f.Reproduction = &r
	return f, nil
}

// missing is the first of a reproduction's arguments r lacks.
func missing(r Reproduction) string {
	switch {
	case r.Path == "":
		return "path"
	case r.Content == "":
		return "content"
	case len(r.Command) == 0:
		return "command"
	}
	return "expect"
}

// required is a string argument that must be given and not blank.
func required(args tools.Args, name string) (string, error) {
	v, err := args.String(name)
	if err != nil {
		return "", withTool(err)
	}
	if v = strings.TrimSpace(v); v == "" {
		return "", argError(name, "must not be empty")
	}
	return v, nil
}

func argError(arg, msg string) error { return &tools.ArgError{Tool: FindingName, Arg: arg, Msg: msg} }

// withTool names the tool in an argument's error.
func withTool(err error) error {
	if ae, ok := err.(*tools.ArgError); ok {
		ae.Tool = FindingName
	}
	return err
}

// observation tells the model what the harness made of its n-th finding.
func observation(f Finding, n int, replaced bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "finding %d (%s:%d) recorded", n, f.File, f.Line)
	if replaced {
		b.WriteString(", replacing the earlier one with the same file, line and claim")
	}
	verdict := "unconfirmed"
	if f.Confirmed {
		verdict = "confirmed"
	}
	fmt.Fprintf(&b, ": %s: %s\n", verdict, f.Why)
	if r := f.Reproduction; r != nil {
		for _, side := range []struct {
			name string
			ran  *Ran
		}{{"head", r.Head}, {"base", r.Base}} {
			if side.ran != nil {
				writeSide(&b, side.name, side.ran)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeSide writes how one side's run ended and its excerpt.
func writeSide(b *strings.Builder, name string, r *Ran) {
	how := "failed"
	switch {
	case r.Error != "":
		how = "could not run: " + r.Error
	case r.TimedOut:
		how = "timed out"
	case r.Passed:
		how = "passed"
	}
	fmt.Fprintf(b, "%s: exit %d, %s in %.1fs\n", name, r.Exit, how, r.Seconds)
	for l := range strings.SplitSeq(r.Excerpt, "\n") {
		if l != "" {
			fmt.Fprintf(b, "  %s\n", l)
		}
	}
}
