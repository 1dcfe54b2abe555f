package session

import (
	"time"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/lang"
)

// DefaultShellTimeout is how long one run_shell command may take.
const DefaultShellTimeout = 2 * time.Minute

// Verification is what the contract holds a run's result to, and how
// long its commands may take.
type Verification struct {
	Verify lang.Tier
	// Checks are the user's checks (--check): commands, split on blanks,
	// that the tier lets run unattended. The contract holds the result to
	// them and to every verification command the model runs.
	Checks []string
	// ChecksFromCI adds the checks the repository's own CI runs: the
	// commands of its workflows' run: steps that the tier can run
	// confined (lang.ChecksFromCI).
	ChecksFromCI bool
	ShellTimeout time.Duration // one run_shell command
	// BuildCeiling is what a command (run_shell's, a check's) may run in
	// all while it compiles: the time a compiler runs among its processes
	// does not count against ShellTimeout, up to this ceiling. Zero means
	// boxagent.BuildCeiling(ShellTimeout).
	BuildCeiling time.Duration
}

// withDefaults fills the zero values.
func (v Verification) withDefaults() Verification {
	if v.ShellTimeout == 0 {
		v.ShellTimeout = DefaultShellTimeout
	}
	if v.BuildCeiling == 0 {
		v.BuildCeiling = boxagent.BuildCeiling(v.ShellTimeout)
	}
	if v.Verify == "" {
		v.Verify = lang.TierOff
	}
	return v
}

// check refuses a negative build ceiling (ShellTimeout's sign is
// Options.checkTimeouts's).
func (v Verification) check() error {
	if v.BuildCeiling < 0 {
		return optionError("build-ceiling", "must be a positive duration, such as 8m, got %s", v.BuildCeiling)
	}
	return nil
}
