package session

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
	VerdictFixed     CheckVerdict = "fixed"     // red on the base, green on the result
	VerdictPassing   CheckVerdict = "passing"   // green on both
)

var verdictOrder = []CheckVerdict{VerdictRegressed, VerdictFailing, VerdictTimedOut, VerdictError, VerdictFixed, VerdictPassing}

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

// addCheck adds c to checks unless a check with the same argv is there.
func addCheck(checks []Check, c Check) []Check {
	for _, have := range checks {
		if slices.Equal(have.Command, c.Command) {
			return checks
		}
	}
	return append(checks, c)
}

// CheckResult is how one run of a check ended.
type CheckResult struct {
	Exit     int     `json:"exit"`
	Passed   bool    `json:"passed"`
	TimedOut bool    `json:"timed_out"`
	Seconds  float64 `json:"seconds"`
	// Sandboxed is set when the check ran confined.
	Sandboxed bool `json:"sandboxed"`
	// WaitedSeconds is how long the check waited, before it started, for
	// the module download the warm-up had under way; its timeout counted
	// only after.
	WaitedSeconds float64 `json:"waited_seconds,omitempty"`
	// BuiltSeconds is how long a compiler ran among the check's
	// processes, time its timeout did not count; AtCeiling is set when
	// the build ceiling stopped it (sandbox.RunOptions.BuildCeiling).
	BuiltSeconds float64 `json:"built_seconds,omitempty"`
	AtCeiling    bool    `json:"at_ceiling,omitempty"`
	// Error says why the check could not run at all.
	Error string `json:"error,omitempty"`
	// Inapplicable is set when the check could not apply to the tree: its
	// ecosystem's manifest is not there ("no go.mod or go.work: go test
	// does not apply here") or its toolchain is missing; Error says which.
	Inapplicable bool `json:"inapplicable,omitempty"`
}

// CheckRun is one check with its two results and its verdict.
type CheckRun struct {
	Command  []string     `json:"command"`
	Source   CheckSource  `json:"source"`
	Baseline CheckResult  `json:"baseline"`
	Result   CheckResult  `json:"result"`
	Verdict  CheckVerdict `json:"verdict"`
}

// String is the command as people write it.
func (r CheckRun) String() string { return strings.Join(r.Command, " ") }

// verdictOf compares a check's result on the final tree with its baseline
// on the start commit.
func verdictOf(base, result CheckResult) CheckVerdict {
	switch {
	case result.Error != "" || base.Error != "" && !base.Inapplicable:
		// A check that did not apply to the base (a manifest the result
		// added) is red there, not broken.
		return VerdictError
	case result.TimedOut:
		return VerdictTimedOut
	case result.Passed && base.Passed:
		return VerdictPassing
	case result.Passed:
		return VerdictFixed
	case base.Passed:
		return VerdictRegressed
	}
	return VerdictFailing
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
	// timeout (Options.BuildCeiling).
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
		c.Checks[i].Verdict = verdictOf(c.Checks[i].Baseline, c.Checks[i].Result)
	}
	slices.SortStableFunc(c.Checks, func(a, b CheckRun) int {
		return slices.Index(verdictOrder, a.Verdict) - slices.Index(verdictOrder, b.Verdict)
	})
	if len(c.Checks) == 0 {
		return c
	}
	c.Verdict = ContractHeld
	c.BaselineGatesNothing = true
	applied := 0
	for _, r := range c.Checks {
		if r.Result.Inapplicable {
			// It could not apply to the result (go test where there is no
			// go.mod): an error, said, that holds the result to nothing.
			continue
		}
		applied++
		if !r.Verdict.holds() {
			c.Verdict = ContractBroken
		}
		if !r.Baseline.Passed {
			c.BaselineGatesNothing = false
		}
	}
	if applied == 0 {
		c.Verdict, c.BaselineGatesNothing = ContractNone, false
	}
	return c
}

// Held reports whether there is a contract and the result kept it.
func (c *Contract) Held() bool { return c != nil && c.Verdict == ContractHeld }

// Broken reports whether the result broke its contract.
func (c *Contract) Broken() bool { return c != nil && c.Verdict == ContractBroken }

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
		case r.Result.Inapplicable:
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
		if r.Result.Inapplicable {
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
