package receipt

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/coreagent/core/session/contract"
)

// Made is what a receipt is made of besides its contract: where the
// commits are, which they are, and how the checks were confined.
type Made struct {
	// Core is core's version (buildinfo.Version).
	Core string
	// Repository is "owner/name" on GitHub, or a local repository's
	// absolute path.
	Repository string
	// Start is the start commit and its tree; Result the commit that
	// holds the checked tree (the landed one, when it landed on GitHub).
	// Result.Tree is the contract's tree when left empty.
	Start, Result Side
	// Branch is the branch the result landed on, if any.
	Branch  string
	Sandbox Sandbox
	// Env returns the names of the environment a check whose program is
	// tool ran with (sandbox.CheckEnvNames); nil leaves them out.
	Env func(tool string) []string
	// Scrub removes the run's secrets from what a check said when it
	// could not run; nil keeps it.
	Scrub func(string) string
	// OutputsNotKept says the contract's outputs are gone (a contract
	// read back from report.json, which holds none): no output is hashed.
	OutputsNotKept bool
}

// Dir is where every contract check runs: the repository's root.
const Dir = "."

// Build makes the receipt of contract c. A check's output is named by its
// SHA-256, never carried.
func Build(c *contract.Contract, m Made) *Receipt {
	r := &Receipt{
		Format: Format, Core: m.Core, Repository: m.Repository,
		Start: m.Start, Result: m.Result, Branch: m.Branch, Sandbox: m.Sandbox,
		Verdict: string(c.Verdict), BuildCeilingSeconds: c.BuildCeilingSeconds,
		Checks: []Check{}, OutputsNotKept: m.OutputsNotKept,
	}
	if r.Result.Tree == "" {
		r.Result.Tree = c.Tree
	}
	for _, ch := range c.Checks {
		env := []string{}
		if m.Env != nil && len(ch.Command) > 0 {
			env = append(env, m.Env(ch.Command[0])...)
		}
		r.Checks = append(r.Checks, Check{
			Argv: append([]string{}, ch.Command...), Dir: Dir, Env: env, Source: string(ch.Source),
			TimeoutSeconds: c.TimeoutSeconds,
			Start:          runOf(ch.Baseline, m), Result: runOf(ch.Result, m),
			Verdict: string(ch.Verdict),
		})
	}
	return r
}

// runOf is how one run of a check ended, its output named by its hash
// (none when the outputs were not kept).
func runOf(r contract.CheckResult, m Made) Run {
	if m.Scrub != nil {
		r.Error = m.Scrub(r.Error)
	}
	run := Run{Exit: r.Exit, Passed: r.Passed, TimedOut: r.TimedOut, Seconds: r.Seconds, Error: r.Error}
	if !m.OutputsNotKept {
		sum := sha256.Sum256([]byte(r.Output))
		run.Output = "sha256:" + hex.EncodeToString(sum[:])
	}
	return run
}

// Make builds the receipt of c and returns its canonical bytes and hash.
func Make(c *contract.Contract, m Made) (data []byte, hash string, err error) {
	data, err = Build(c, m).Marshal()
	if err != nil {
		return nil, "", err
	}
	return data, Hash(data), nil
}
