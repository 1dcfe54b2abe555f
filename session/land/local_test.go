package land

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/contract"
)

// TestCommitMessageDoesNotRepeatAClaimAsFact: the landing commit of a
// broken contract is marked as its pull request's title is and says the
// checks contradict the model; one the harness did not check says so.
func TestCommitMessageDoesNotRepeatAClaimAsFact(t *testing.T) {
	t.Parallel()
	green := contract.CheckResult{Exit: 0, Passed: true, Seconds: 2.9, Sandboxed: true}
	broken := contract.NewContract([]contract.CheckRun{{Command: []string{"go", "test", "./..."}, Source: contract.SourceModel, Baseline: green, Result: contract.CheckResult{Exit: 1}}}, 0)
	require.True(t, broken.Broken())
	tests := []struct {
		name     string
		contract *contract.Contract
		want     string
	}{
		{name: "held", contract: &contract.Contract{Verdict: contract.ContractHeld},
			want: "Fix Add; go test passes\n\nSession: s1\n"},
		{name: "broken", contract: broken,
			want: "[checks failing] Fix Add; go test passes\n\nThe harness's checks: contract broken: 1 regressed. What follows is the model's summary, which they contradict.\n\nFix Add; go test passes\n\nSession: s1\n"},
		{name: "unchecked", contract: nil,
			want: "Fix Add; go test passes\n\nThe harness ran no checks on this result: the model's summary below is unverified.\n\nFix Add; go test passes\n\nSession: s1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, CommitMessage("Fix Add; go test passes", "s1", tt.contract))
		})
	}
}

// TestCommitMessageUnjudged: the landing commit of a contract no check
// could judge is not marked as failing, and says the contract is unjudged.
func TestCommitMessageUnjudged(t *testing.T) {
	t.Parallel()
	noTool := contract.CheckResult{Exit: 127, Seconds: 0.2, Sandboxed: true, Cause: "a tool is missing: xo", Evidence: "sh: 1: xo: not found"}
	red := contract.CheckResult{Exit: 1, Seconds: 3.1, Sandboxed: true}
	green := contract.CheckResult{Exit: 0, Passed: true, Seconds: 2.9, Sandboxed: true}
	c := contract.NewContract([]contract.CheckRun{
		{Command: []string{"npm", "test"}, Source: contract.SourceModel, Baseline: noTool, Result: noTool},
		{Command: []string{"npm", "run", "build"}, Source: contract.SourceModel, Baseline: red, Result: green},
	}, 2*time.Minute)
	require.True(t, c.Unjudged())
	msg := CommitMessage("Fix the parser\n\nall tests pass", "s1", c)
	assert.True(t, strings.HasPrefix(msg, "Fix the parser\n"), "no [checks failing] on the environment's outcome: %s", msg)
	assert.Contains(t, msg, "contract unjudged")
}

// TestCommitMessageSubject: a long first line gives a subject that is its
// first sentence, or is cut at a word, never mid-word, and the body keeps
// what the subject left out; a failing contract's prefix counts toward
// the 72 runes.
func TestCommitMessageSubject(t *testing.T) {
	t.Parallel()
	held := &contract.Contract{Verdict: contract.ContractHeld}
	msg := CommitMessage("Fix the parser. It now accepts trailing commas in nested arrays and objects, as JSON5 does.\n\nTests added.", "s1", held)
	assert.Equal(t, "Fix the parser.\n\nIt now accepts trailing commas in nested arrays and objects, as JSON5 does.\n\nTests added.\n\nSession: s1\n", msg)

	msg = CommitMessage("Make the parser accept trailing commas in nested arrays and objects, as JSON5 does", "s1", held)
	subject, body, _ := strings.Cut(msg, "\n\n")
	assert.Equal(t, "Make the parser accept trailing commas in nested arrays and objects, as…", subject)
	assert.True(t, strings.HasPrefix(body, "…JSON5 does\n"), body)

	broken := contract.NewContract([]contract.CheckRun{{Command: []string{"go", "test", "./..."}, Source: contract.SourceUser,
		Baseline: contract.CheckResult{Exit: 0, Passed: true}, Result: contract.CheckResult{Exit: 1}}}, time.Minute)
	require.True(t, broken.Broken())
	msg = CommitMessage("Make the parser accept trailing commas in nested arrays and objects, as JSON5 does", "s1", broken)
	subject, _, _ = strings.Cut(msg, "\n")
	assert.LessOrEqual(t, len([]rune(subject)), 72)
	assert.True(t, strings.HasPrefix(subject, contract.FailingTitlePrefix+"Make the parser"), subject)
	assert.True(t, strings.HasSuffix(subject, "…"), subject)
}
