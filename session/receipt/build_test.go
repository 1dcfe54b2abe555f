package receipt

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/contract"
)

func TestBuild(t *testing.T) {
	c := &contract.Contract{
		Verdict: contract.ContractHeld, TimeoutSeconds: 60, BuildCeilingSeconds: 240, Tree: strings.Repeat("e", 40),
		Checks: []contract.CheckRun{{
			Command: []string{"gofmt", "-l", "."}, Source: contract.SourceUser, Verdict: contract.VerdictFixed,
			Baseline: contract.CheckResult{Exit: 2, Seconds: 0.5, Output: "calc.go:3:1: expected", Error: ""},
			Result:   contract.CheckResult{Exit: 0, Passed: true, Seconds: 0.25, Output: "", Error: "token ghp_secret"},
		}},
	}
	m := Made{
		Core: "core (devel)", Repository: "/src/calc",
		Start:  Side{Commit: strings.Repeat("a", 40), Tree: strings.Repeat("b", 40)},
		Result: Side{Commit: strings.Repeat("c", 40)}, Branch: "core-session/1",
		Sandbox: Sandbox{Backend: "bwrap", Tier: "test", Profile: "sha256:p"},
		Env:     func(string) []string { return []string{"HOME", "PATH"} },
		Scrub:   func(s string) string { return strings.ReplaceAll(s, "ghp_secret", "[redacted]") },
	}
	data, hash, err := Make(c, m)
	require.NoError(t, err)
	assert.Equal(t, Hash(data), hash)
	r, err := Parse(data)
	require.NoError(t, err)
	assert.Equal(t, c.Tree, r.Result.Tree, "the result's tree is the contract's")
	assert.Equal(t, "held", r.Verdict)
	assert.Equal(t, "core-session/1", r.Branch)
	assert.InDelta(t, 240, r.BuildCeilingSeconds, 0)
	require.Len(t, r.Checks, 1)
	ch := r.Checks[0]
	assert.Equal(t, []string{"gofmt", "-l", "."}, ch.Argv)
	assert.Equal(t, ".", ch.Dir)
	assert.Equal(t, []string{"HOME", "PATH"}, ch.Env)
	assert.InDelta(t, 60, ch.TimeoutSeconds, 0)
	assert.Equal(t, "fixed", ch.Verdict)
	assert.Equal(t, 2, ch.Start.Exit)
	assert.True(t, ch.Result.Passed)
	sum := sha256.Sum256([]byte("calc.go:3:1: expected"))
	assert.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), ch.Start.Output, "the output is named by its hash")
	assert.NotContains(t, string(data), "calc.go:3:1", "the output itself is not carried")
	assert.NotContains(t, string(data), "ghp_secret", "a secret never reaches the receipt")

	again, _, err := Make(c, m)
	require.NoError(t, err)
	assert.Equal(t, data, again, "the same contract gives the same bytes")
}

// A contract whose outputs are gone (read back from report.json) gives a
// receipt that says so and names no output's hash, not the hash of
// nothing.
func TestBuildOutputsNotKept(t *testing.T) {
	c := &contract.Contract{
		Verdict: contract.ContractHeld, Tree: strings.Repeat("e", 40),
		Checks: []contract.CheckRun{{
			Command: []string{"go", "test"}, Verdict: contract.VerdictFixed,
			Baseline: contract.CheckResult{Exit: 1}, Result: contract.CheckResult{Passed: true},
		}},
	}
	m := Made{Result: Side{Commit: strings.Repeat("c", 40)}}
	kept, _, err := Make(c, m)
	require.NoError(t, err)
	assert.NotContains(t, string(kept), "outputs_not_kept")
	assert.Contains(t, string(kept), `"output":"sha256:`)

	m.OutputsNotKept = true
	data, _, err := Make(c, m)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"outputs_not_kept":true`)
	assert.NotContains(t, string(data), `"output"`, "no output's hash, not even of empty output")
	r, err := Parse(data)
	require.NoError(t, err)
	assert.True(t, r.OutputsNotKept)
	assert.Empty(t, r.Checks[0].Start.Output)
	assert.Empty(t, r.Checks[0].Result.Output)
}
