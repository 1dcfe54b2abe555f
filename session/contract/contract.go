package contract

import (
	"slices"
	"strings"
	"time"
)

// ContractVerdict says whether a session's result kept its contract.
type ContractVerdict string

// The contract verdicts.
const (
	ContractHeld   ContractVerdict = "held"   // no check regressed, failed, timed out or could not run
	ContractBroken ContractVerdict = "broken" // at least one did
	ContractNone   ContractVerdict = "none"   // there were no checks
	// ContractUnjudged: no check regressed or failed for the code, but at
	// least one could not judge it, for a cause of the environment's (a
	// tool missing, an index unreachable, timed out on both sides).
	ContractUnjudged ContractVerdict = "unjudged"
)

// CheckSource says who asked for a check.
type CheckSource string

// The check sources.
const (
	SourceUser  CheckSource = "user"  // --check, the Action's checks input
	SourceModel CheckSource = "model" // a verification command the model ran
	SourceCI    CheckSource = "ci"    // a run: step of the repository's workflows (--checks-from-ci)
)

// CheckVerdict is what one check says about the result, given the base.
type CheckVerdict string

// The check verdicts, in the order they are named: the worst first.
const (
	VerdictRegressed CheckVerdict = "regressed" // green on the base, red on the result
	VerdictFailing   CheckVerdict = "failing"   // red on both
	VerdictTimedOut  CheckVerdict = "timed_out" // the result ran past the shell timeout
	VerdictError     CheckVerdict = "error"     // it could not run
	// VerdictEnvironment: red for a cause of the environment's, on either
	// side (CheckRun.Cause says which), so it says nothing of the code.
	VerdictEnvironment CheckVerdict = "environment"
	VerdictFixed       CheckVerdict = "fixed"   // red on the base, green on the result
	VerdictPassing     CheckVerdict = "passing" // green on both
)

var verdictOrder = []CheckVerdict{VerdictRegressed, VerdictFailing, VerdictTimedOut, VerdictError, VerdictEnvironment, VerdictFixed, VerdictPassing}

// holds reports whether a check with this verdict keeps the contract.
func (v CheckVerdict) holds() bool { return v == VerdictFixed || v == VerdictPassing }

// Check is one command the contract holds the result to: an argv list the
// session's tier lets run unattended.
type Check struct {
	Command []string    `json:"command"`
	Source  CheckSource `json:"source"`
}

// String is the command as people write it.
func (c Check) String() string { return strings.Join(c.Command, " ") }

// AddCheck adds c to checks unless a check with the same argv is there.
func AddCheck(checks []Check, c Check) []Check {
	for _, have := range checks {
		if slices.Equal(have.Command, c.Command) {
			return checks
		}
	}
	return append(checks, c)
}

// Uncounted is the time of a check's run its timeout did not count.
type Uncounted struct {
	// WaitedSeconds is how long the check waited, before it started, for
	// the module download the warm-up had under way; its timeout counted
	// only after.
	WaitedSeconds float64 `json:"waited_seconds,omitempty"`
	// BuiltSeconds is how long a compiler ran among the check's
	// processes, time its timeout did not count; AtCeiling is set when
	// the build ceiling stopped it (sandbox.RunOptions.BuildCeiling).
	BuiltSeconds float64 `json:"built_seconds,omitempty"`
	AtCeiling    bool    `json:"at_ceiling,omitempty"`
}

// CheckResult is how one run of a check ended.
type CheckResult struct {
	Exit     int     `json:"exit"`
	Passed   bool    `json:"passed"`
	TimedOut bool    `json:"timed_out"`
	Seconds  float64 `json:"seconds"`
	// Sandboxed is set when the check ran confined.
	Sandboxed bool `json:"sandboxed"`
	Uncounted
	// Error says why the check could not run at all.
	Error string `json:"error,omitempty"`
	// Inapplicable is set when the check could not apply to the tree: its
	// ecosystem's manifest is not there ("no go.mod or go.work: go test
	// does not apply here") or its toolchain is missing; Error says which.
	Inapplicable bool `json:"inapplicable,omitempty"`
	// Cause says, when the check failed for a cause of the environment's
	// (a tool or a dependency missing, a read-only path written, a
	// package index unreachable), what it was; Evidence is the line of
	// its output that shows it (environmentCause).
	Cause    string `json:"cause,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	// Output is what the sandbox kept of the check's output (its head and
	// tail, within the checker's bound): its hash goes in the receipt, its
	// end in the check run's annotation. Never in report.json.
	Output string `json:"-"`
}

// ran reports whether the check ran on this tree, whatever its exit.
func (r CheckResult) ran() bool { return r.Error == "" }

// CheckRun is one check with its two results and its verdict.
type CheckRun struct {
	Command  []string     `json:"command"`
	Source   CheckSource  `json:"source"`
	Baseline CheckResult  `json:"baseline"`
	Result   CheckResult  `json:"result"`
	Verdict  CheckVerdict `json:"verdict"`
	// Cause and Evidence say, for the verdict environment, why the check
	// could not judge the code and the line of output that shows it; the
	// side is named when only one had the cause ("on the start commit: ").
	Cause    string `json:"cause,omitempty"`
	Evidence string `json:"evidence,omitempty"`
}

// skipped reports whether the check held the result to nothing: it could
// not apply to the result, nor did it run on the base.
func (r CheckRun) skipped() bool { return r.Result.Inapplicable && r.Verdict == VerdictError }

// String is the command as people write it.
func (r CheckRun) String() string { return strings.Join(r.Command, " ") }

// verdictOf compares a check's result on the final tree with its baseline
// on the start commit.
func verdictOf(base, result CheckResult) CheckVerdict {
	switch {
	case result.Inapplicable && base.ran():
		// It ran on the start commit and cannot on the result: the change
		// removed what it needs (its go.mod, its runner's manifest).
		if base.Passed {
			return VerdictRegressed
		}
		return VerdictFailing
	case result.Error != "" || base.Error != "" && !base.Inapplicable:
		// A check that did not apply to the base (a manifest the result
		// added) is red there, not broken.
		return VerdictError
	case result.TimedOut && base.TimedOut:
		// Killed on both sides: the time went before any test could say
		// anything of the code (a cold compile, a slow machine).
		return VerdictEnvironment
	case !result.Passed && result.Cause != "":
		return VerdictEnvironment
	case result.TimedOut:
		return VerdictTimedOut
	case result.Passed && base.Passed:
		return VerdictPassing
	case result.Passed:
		return VerdictFixed
	case base.Passed:
		return VerdictRegressed
	case base.Cause != "":
		// Red on the result, and the start commit could not say whether
		// it was red before: neither a regression nor a failure proven.
		return VerdictEnvironment
	}
	return VerdictFailing
}

// environmentOf says why a check with the verdict environment could not
// judge the code, and the evidence: the result's cause, or the base's
// named as the start commit's.
func environmentOf(base, result CheckResult) (cause, evidence string) {
	switch {
	case result.TimedOut && base.TimedOut:
		return causeTimedOutBoth, ""
	case result.Cause != "" && base.Cause == result.Cause:
		return result.Cause, result.Evidence
	case result.Cause != "":
		return "on the result: " + result.Cause, result.Evidence
	}
	return "on the start commit: " + base.Cause, base.Evidence
}

// Contract is the harness's own verdict on a session's result: every check
// run by the harness, confined, on the start commit and on the final tree.
// Every reporter renders it; none judges for itself.
type Contract struct {
	Verdict ContractVerdict `json:"verdict"`
	// BaselineGatesNothing is set when every check already passed on the
	// start commit: the contract gates nothing for this task.
	BaselineGatesNothing bool       `json:"baseline_gates_nothing"`
	Checks               []CheckRun `json:"checks"`
	// TimeoutSeconds is the limit each check ran under.
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	// BuildCeilingSeconds bounds each check that compiled beyond its
	// timeout (session.Verification.BuildCeiling).
	BuildCeilingSeconds float64 `json:"build_ceiling_seconds,omitempty"`
	// Tree is the git tree object the result checks ran on: the
	// workspace as it was frozen at done, and what lands.
	Tree string `json:"tree,omitempty"`
}

// NewContract judges the runs: it sorts them worst first (a regression is
// named first, everywhere) and sets the verdict.
func NewContract(runs []CheckRun, timeout time.Duration) *Contract {
	c := &Contract{Verdict: ContractNone, Checks: append([]CheckRun{}, runs...), TimeoutSeconds: timeout.Seconds()}
	for i := range c.Checks {
		r := &c.Checks[i]
		r.Verdict = verdictOf(r.Baseline, r.Result)
		if r.Verdict == VerdictEnvironment {
			r.Cause, r.Evidence = environmentOf(r.Baseline, r.Result)
		}
	}
	slices.SortStableFunc(c.Checks, func(a, b CheckRun) int {
		return slices.Index(verdictOrder, a.Verdict) - slices.Index(verdictOrder, b.Verdict)
	})
	if len(c.Checks) == 0 {
		return c
	}
	c.Verdict = ContractHeld
	c.BaselineGatesNothing = true
	applied, unjudged := 0, false
	for _, r := range c.Checks {
		if r.skipped() {
			// It could not apply to the result (go test where there is no
			// go.mod), nor to the base: an error, said, that holds the
			// result to nothing.
			continue
		}
		applied++
		switch {
		case r.Verdict == VerdictEnvironment:
			unjudged = true
		case !r.Verdict.holds():
			c.Verdict = ContractBroken
		}
		if !r.Baseline.Passed {
			c.BaselineGatesNothing = false
		}
	}
	switch {
	case applied == 0:
		c.Verdict, c.BaselineGatesNothing = ContractNone, false
	case unjudged && c.Verdict == ContractHeld:
		// No check found the code wanting, but one could not judge it:
		// never held, never broken.
		c.Verdict, c.BaselineGatesNothing = ContractUnjudged, false
	}
	return c
}

// Held reports whether there is a contract and the result kept it.
func (c *Contract) Held() bool { return c != nil && c.Verdict == ContractHeld }

// Broken reports whether the result broke its contract.
func (c *Contract) Broken() bool { return c != nil && c.Verdict == ContractBroken }

// Unjudged reports whether no check found the result wanting but at
// least one could not judge it, for a cause of the environment's.
func (c *Contract) Unjudged() bool { return c != nil && c.Verdict == ContractUnjudged }

// None reports whether nothing held the result to anything.
func (c *Contract) None() bool { return c == nil || c.Verdict == ContractNone }

// Counts returns how many checks passed on the result and how many did
// not, of those that applied to it.
func (c *Contract) Counts() (passed, failed int) {
	if c == nil {
		return 0, 0
	}
	for _, r := range c.Checks {
		switch {
		case r.skipped():
		case r.Verdict.holds():
			passed++
		default:
			failed++
		}
	}
	return passed, failed
}

// inapplicable counts the checks that could not apply to the result.
func (c *Contract) inapplicable() int {
	if c == nil {
		return 0
	}
	n := 0
	for _, r := range c.Checks {
		if r.skipped() {
			n++
		}
	}
	return n
}

// VerdictOrNone is the verdict, none when there is no contract.
func (c *Contract) VerdictOrNone() ContractVerdict {
	if c == nil {
		return ContractNone
	}
	return c.Verdict
}
