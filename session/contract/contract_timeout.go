package contract

import (
	"fmt"
	"time"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/session/tools"
)

// killedNote says, when a check timed out, that core killed it at the
// shell timeout (or at the build ceiling), where its time went, and what
// helps; "" when none timed out. A narrower command is suggested only
// when the check is not one package or one test already
// (tools.NarrowerCommand).
func (c *Contract) killedNote() string {
	for _, r := range c.Checks {
		for _, res := range []CheckResult{r.Result, r.Baseline} {
			if res.TimedOut {
				return killedCheckNote(r, res, c.timeout(), c.buildCeiling())
			}
		}
	}
	return ""
}

// killedCheckNote is killedNote for one run of one check.
func killedCheckNote(check CheckRun, r CheckResult, timeout, ceiling time.Duration) string {
	built := time.Duration(r.BuiltSeconds * float64(time.Second))
	ran := time.Duration(r.Seconds * float64(time.Second))
	var s string
	if r.AtCeiling {
		s = fmt.Sprintf("core killed a check still compiling at the build ceiling of %s (the shell timeout of %s does not count the time a check compiles; the ceiling does): raise it with --build-ceiling", ceiling, timeout)
	} else {
		s = fmt.Sprintf("core killed a check that ran past the shell timeout of %s (a wait for the module download does not count): raise it with --shell-timeout", timeout)
	}
	if built > 0 && !r.AtCeiling {
		s = fmt.Sprintf("%s; %s ran for %s, of which it compiled for %s (not counted)", s, check, ran.Round(time.Second), built.Round(time.Second))
	}
	if built > 0 {
		s += "; what it compiled stays in the build cache for the next run"
	}
	switch {
	case tools.NarrowerCommand(check.Command) == "":
	case check.Command[0] == "go":
		s += ", or check with a narrower command (one package, or go test -run one test)"
	default:
		s += ", or check with a narrower command"
	}
	return s
}

// buildCeiling is what each check that compiled could run in all.
func (c *Contract) buildCeiling() time.Duration {
	if c.BuildCeilingSeconds > 0 {
		return time.Duration(c.BuildCeilingSeconds * float64(time.Second))
	}
	return boxagent.BuildCeiling(c.timeout())
}
