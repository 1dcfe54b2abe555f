package contract

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/tools"
)

// UserChecks turns the --check texts into checks, refusing any the tier
// does not let run unattended: a check the harness cannot run confined
// holds nothing.
func UserChecks(texts []string, tier lang.Tier) ([]Check, error) {
	var checks []Check
	for _, text := range texts {
		argv, err := lang.SplitCommand(strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("--check: %w", err)
		}
		d := lang.Check(tier, argv)
		switch {
		case !d.Allowed():
			return nil, fmt.Errorf("--check %q: the verify tier %s does not let it run unattended (%s); raise the tier (--verify build or test) or drop the check", text, tier, d.Reason)
		case d.Network:
			return nil, fmt.Errorf("--check %q: it fetches modules on the host and may change go.mod; a check must only report (go build, go vet, go test, gofmt -l)", text)
		}
		checks = AddCheck(checks, Check{Command: argv, Source: SourceUser})
	}
	return checks, nil
}

// ModelCheck turns a verification command the model ran into a check, or
// reports false when the harness could not hold the result to it: the
// tier does not let it run unattended, or it is a go mod command, which
// changes go.mod rather than checking anything.
func ModelCheck(v *tools.Verification, tier lang.Tier) (Check, bool) {
	argv, err := lang.SplitCommand(v.Command)
	if err != nil {
		return Check{}, false
	}
	if d := lang.Check(tier, argv); !d.Allowed() || d.Network {
		return Check{}, false
	}
	return Check{Command: argv, Source: SourceModel}, true
}

// CheckStopped is a check stopped by its context.
type CheckStopped struct{ Err error }

func (e CheckStopped) Error() string { return "stopped: " + e.Err.Error() }

// CheckResultOf is how one run of a check ended, from what the sandbox
// said (r, err); isLocal names the repository's own modules (RepoModule).
func CheckResultOf(r sandbox.Result, err error, isLocal func(string) bool) CheckResult {
	res := CheckResult{Exit: r.ExitCode, TimedOut: r.TimedOut, Seconds: r.Duration.Seconds(), Sandboxed: r.Sandboxed,
		Uncounted: Uncounted{WaitedSeconds: r.Waited.Seconds(), BuiltSeconds: r.Built.Seconds(), AtCeiling: r.AtCeiling}, Output: r.Output}
	var refused *sandbox.RefusedError
	switch {
	case errors.As(err, &refused):
		res.Exit, res.Error = -1, refused.Reason
	case err != nil:
		res.Exit, res.Error = -1, err.Error()
	}
	res.Passed = res.Error == "" && !res.TimedOut && res.Exit == 0
	res.Cause, res.Evidence = environmentCause(res, r.Output, r.Setup, isLocal)
	var unreachable *deps.Unreachable
	if !res.Passed && errors.As(r.Deps, &unreachable) {
		// The dependency step said so itself: the command ran without
		// its dependencies because a registry could not be reached.
		res.Cause = causeUnreachable + ": " + unreachable.Host
		res.Evidence = clip.Line(unreachable.Evidence, maxEvidence)
	}
	return res
}
