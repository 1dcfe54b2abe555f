package contract

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	green   = CheckResult{Exit: 0, Passed: true, Seconds: 2.9, Sandboxed: true}
	red     = CheckResult{Exit: 1, Seconds: 3.1, Sandboxed: true}
	stuck   = CheckResult{Exit: -1, TimedOut: true, Seconds: 120, Sandboxed: true}
	missing = CheckResult{Exit: -1, Error: "it runs workspace code and the sandbox is not usable here"}
	notHere = CheckResult{Exit: -1, Error: "no go.mod or go.work: go test does not apply here", Inapplicable: true}
	noTool  = CheckResult{Exit: 127, Seconds: 0.2, Sandboxed: true, Cause: "a tool is missing: xo", Evidence: "sh: 1: xo: not found"}
)

func TestVerdictOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		base, result CheckResult
		want         CheckVerdict
	}{
		{name: "red to green", base: red, result: green, want: VerdictFixed},
		{name: "green to green", base: green, result: green, want: VerdictPassing},
		{name: "green to red", base: green, result: red, want: VerdictRegressed},
		{name: "red to red", base: red, result: red, want: VerdictFailing},
		{name: "result timed out", base: green, result: stuck, want: VerdictTimedOut},
		{name: "base timed out counts as red", base: stuck, result: green, want: VerdictFixed},
		{name: "result could not run", base: green, result: missing, want: VerdictError},
		{name: "base could not run", base: missing, result: green, want: VerdictError},
		{name: "result did not apply", base: notHere, result: notHere, want: VerdictError},
		{name: "base did not apply, the result made it apply", base: notHere, result: green, want: VerdictFixed},
		{name: "base did not apply, red on the result", base: notHere, result: red, want: VerdictFailing},
		{name: "timed out on both sides is the environment's", base: stuck, result: stuck, want: VerdictEnvironment},
		{name: "a tool missing on both sides", base: noTool, result: noTool, want: VerdictEnvironment},
		{name: "a tool missing on the result only", base: green, result: noTool, want: VerdictEnvironment},
		{name: "a tool missing on the base, red on the result", base: noTool, result: red, want: VerdictEnvironment},
		{name: "a tool missing on the base, green on the result", base: noTool, result: green, want: VerdictFixed},
		{name: "green on the base, the change removed its manifest", base: green, result: notHere, want: VerdictRegressed},
		{name: "red on the base, the change removed its manifest", base: red, result: notHere, want: VerdictFailing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, verdictOf(tt.base, tt.result))
		})
	}
}

func checkRun(argv string, base, result CheckResult) CheckRun {
	return CheckRun{Command: strings.Fields(argv), Source: SourceModel, Baseline: base, Result: result}
}

func TestNewContract(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		runs        []CheckRun
		verdict     ContractVerdict
		gates       bool
		order       []CheckVerdict
		line        string
		passed, bad int
	}{
		{name: "no checks", verdict: ContractNone, line: UnverifiedWarning},
		{name: "a fix", runs: []CheckRun{checkRun("go test ./...", red, green)}, verdict: ContractHeld,
			order: []CheckVerdict{VerdictFixed}, line: "contract held", passed: 1},
		{name: "every baseline already green", runs: []CheckRun{checkRun("go vet ./...", green, green)}, verdict: ContractHeld, gates: true,
			order: []CheckVerdict{VerdictPassing}, line: "contract held (every check already passed on the base: it gates nothing for this task)", passed: 1},
		{
			name: "regressed named first",
			runs: []CheckRun{
				checkRun("go vet ./...", green, green), checkRun("go build ./...", red, red),
				checkRun("go test ./...", green, red), checkRun("go test -run X ./...", green, stuck),
			},
			verdict: ContractBroken,
			order:   []CheckVerdict{VerdictRegressed, VerdictFailing, VerdictTimedOut, VerdictPassing},
			line:    "contract broken: 1 regressed, 1 failing, 1 timed out", passed: 1, bad: 3,
		},
		{name: "a check that did not apply holds nothing", runs: []CheckRun{checkRun("go test ./...", notHere, notHere)}, verdict: ContractNone,
			order: []CheckVerdict{VerdictError}, line: UnverifiedWarning + " (1 check did not apply here)"},
		{name: "a check that did not apply breaks nothing", runs: []CheckRun{checkRun("go test ./...", notHere, notHere), checkRun("pytest", red, green)},
			verdict: ContractHeld, order: []CheckVerdict{VerdictError, VerdictFixed}, line: "contract held (1 check did not apply here)", passed: 1},
		{name: "could not run breaks it", runs: []CheckRun{checkRun("go test ./...", green, missing)}, verdict: ContractBroken, gates: true,
			order: []CheckVerdict{VerdictError}, line: "contract broken: 1 could not run", bad: 1},
		{name: "the environment's on both sides is unjudged, never broken", runs: []CheckRun{checkRun("npm test", noTool, noTool), checkRun("npm run lint", red, green)},
			verdict: ContractUnjudged, order: []CheckVerdict{VerdictEnvironment, VerdictFixed},
			line: "contract unjudged: npm test could not be judged (a tool is missing: xo)", passed: 1, bad: 1},
		{name: "timed out on both sides is unjudged", runs: []CheckRun{checkRun("go test .", stuck, stuck)},
			verdict: ContractUnjudged, order: []CheckVerdict{VerdictEnvironment},
			line: "contract unjudged: go test . could not be judged (timed out on both sides: could not judge)", bad: 1},
		{name: "a regression beside the environment's is broken", runs: []CheckRun{checkRun("npm test", noTool, noTool), checkRun("go test ./...", green, red)},
			verdict: ContractBroken, order: []CheckVerdict{VerdictRegressed, VerdictEnvironment},
			line: "contract broken: 1 regressed, 1 could not judge (the environment's)", bad: 2},
		{name: "a change that removed a passing check's manifest broke it", runs: []CheckRun{checkRun("go test ./...", green, notHere), checkRun("pytest", red, green)},
			verdict: ContractBroken, order: []CheckVerdict{VerdictRegressed, VerdictFixed},
			line: "contract broken: 1 regressed", passed: 1, bad: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := NewContract(tt.runs, 2*time.Minute)
			assert.Equal(t, tt.verdict, c.Verdict)
			assert.Equal(t, tt.gates, c.BaselineGatesNothing)
			var order []CheckVerdict
			for _, r := range c.Checks {
				order = append(order, r.Verdict)
			}
			assert.Equal(t, tt.order, order)
			assert.Equal(t, tt.line, c.Line())
			passed, bad := c.Counts()
			assert.Equal(t, tt.passed, passed)
			assert.Equal(t, tt.bad, bad)
		})
	}
}

func TestContractJSON(t *testing.T) {
	t.Parallel()
	c := NewContract([]CheckRun{checkRun("go test ./...", red, green)}, 2*time.Minute)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "held", got["verdict"])
	assert.Equal(t, false, got["baseline_gates_nothing"])
	check := got["checks"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{"go", "test", "./..."}, check["command"])
	assert.Equal(t, "model", check["source"])
	assert.Equal(t, "fixed", check["verdict"])
	base := check["baseline"].(map[string]any)
	assert.InDelta(t, 1, base["exit"], 0)
	assert.Equal(t, false, base["passed"])
	assert.Equal(t, false, base["timed_out"])
	assert.InDelta(t, 3.1, base["seconds"], 0.001)
	assert.Equal(t, true, check["result"].(map[string]any)["passed"])
}

func TestContractText(t *testing.T) {
	t.Parallel()
	waitedStuck := stuck
	waitedStuck.WaitedSeconds = 95
	c := NewContract([]CheckRun{checkRun("go vet ./...", green, green), checkRun("go test ./...", green, waitedStuck)}, 2*time.Minute)
	var b strings.Builder
	c.WriteText(&b)
	assert.Equal(t, "checks (run by the harness on the start commit and on the result):\n"+
		"  go test ./... — timed out: base exit 0, result timed out after 2m0s (120.0s, sandboxed, after 95.0s waiting for the module download)\n"+
		"  go vet ./... — passing: base exit 0, result exit 0 (2.9s, sandboxed)\n"+
		"  core killed a check that ran past the shell timeout of 2m0s (a wait for the module download does not count): raise it with --shell-timeout, or check with a narrower command (one package, or go test -run one test)\n"+
		"contract broken: 1 timed out\n", b.String())
	assert.False(t, c.Held(), "a check that timed out verified nothing")
	assert.Contains(t, c.Markdown(), "| `go test ./...` | **timed out** | exit 0 (2.9s, sandboxed) | timed out after 2m0s (120.0s, sandboxed, after 95.0s waiting for the module download) |")
	assert.Contains(t, c.Markdown(), "\nCore killed a check that ran past the shell timeout of 2m0s")

	b.Reset()
	NewContract([]CheckRun{checkRun("go test ./...", red, green)}, time.Minute).WriteText(&b)
	assert.Contains(t, b.String(), "go test ./... — fixed: base exit 1, result exit 0 (2.9s, sandboxed)\ncontract held\n")

	b.Reset()
	var none *Contract
	none.WriteText(&b)
	assert.Equal(t, UnverifiedWarning+"\n", b.String())
}

func TestContractMarkdown(t *testing.T) {
	t.Parallel()
	c := NewContract([]CheckRun{checkRun("go vet ./...", green, green), checkRun("go test ./...", green, red)}, 2*time.Minute)
	md := c.Markdown()
	assert.Contains(t, md, "| check | verdict | base | result |\n|---|---|---|---|\n"+
		"| `go test ./...` | **regressed** | exit 0 (2.9s, sandboxed) | exit 1 (3.1s, sandboxed) |\n"+
		"| `go vet ./...` | passing | exit 0 (2.9s, sandboxed) | exit 0 (2.9s, sandboxed) |\n")
	assert.Contains(t, md, "**Contract broken: 1 regressed.**")
	assert.NotContains(t, md, "killed", "no check timed out")
	assert.Equal(t, "**checks failing**: contract broken: 1 regressed", c.StatusLine())

	var none *Contract
	assert.Contains(t, none.Markdown(), "> [!WARNING]\n> The harness ran no checks on the result — this patch is UNVERIFIED.")
	assert.Equal(t, "**UNVERIFIED**: the harness ran no checks", none.StatusLine())
}
