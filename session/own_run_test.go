package session

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/session/tools"
)

func TestSuccessClaim(t *testing.T) {
	t.Parallel()
	tests := []struct{ summary, want string }{
		{summary: "Fixed the off-by-one in add. All tests pass now.", want: "All tests pass now"},
		{summary: "the tests pass", want: "the tests pass"},
		{summary: "Fixed the failing test; the suite is green", want: "Fixed the failing test; the suite is green"},
		{summary: "go test ./... passes", want: "go test ./... passes"},
		{summary: "Build succeeded and vet is clean.", want: "Build succeeded and vet is clean"},
		{summary: "The tests do not pass yet: the parser still rejects empty input."},
		{summary: "Tests still fail; I could not find the cause."},
		{summary: "I passed the context through to the handler."},
		{summary: "Renamed the helper."},
		{summary: ""},
	}
	for _, tt := range tests {
		t.Run(tt.summary, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, successClaim(tt.summary))
		})
	}
}

func TestOwnRunContradicts(t *testing.T) {
	t.Parallel()
	pytest := []Check{{Command: []string{"pytest"}, Source: SourceModel}}
	tests := []struct {
		name    string
		summary string
		runs    ownRuns
		checks  []Check
		want    string
	}{
		{name: "the last run failed", summary: "the tests pass", runs: ownRuns{{Command: "pytest", ExitCode: 1}}, checks: pytest,
			want: "the model said \"the tests pass\"; its own last run of `pytest` exited 1"},
		{name: "a check's last run failed before a passing other command", summary: "All tests pass.",
			runs: ownRuns{{Command: "pytest", ExitCode: 2}, {Command: "python3 -m compileall .", ExitCode: 0}}, checks: pytest,
			want: "the model said \"All tests pass\"; its own last run of `pytest` exited 2"},
		{name: "it ran again and passed", summary: "the tests pass", runs: ownRuns{}.add(tools.Verification{Command: "pytest", ExitCode: 1}).add(tools.Verification{Command: "pytest"}), checks: pytest},
		{name: "a killed run", summary: "the tests pass", runs: ownRuns{{Command: "go test ./...", ExitCode: -1}},
			want: "the model said \"the tests pass\"; its own last run of `go test ./...` did not finish (killed, or it could not start)"},
		{name: "no claim", summary: "Tests still fail; I could not find the cause.", runs: ownRuns{{Command: "pytest", ExitCode: 1}}, checks: pytest},
		{name: "no run", summary: "the tests pass"},
		{name: "an earlier failed run of a command that is no check", summary: "the tests pass",
			runs: ownRuns{{Command: "go vet ./...", ExitCode: 1}, {Command: "go test ./...", ExitCode: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ownRunContradicts(tt.summary, tt.runs, tt.checks))
		})
	}
}

// TestOwnFailingRunNamed: a model whose own last go vet failed, and which
// changed nothing, calls done saying the checks pass; the run ends
// completed, and its summary says, beside the claim, that its own run
// failed.
func TestOwnFailingRunNamed(t *testing.T) {
	t.Parallel()
	repo := fixtureRepo(t, goModule(broken))
	srv := testkit.NewModelServer(t,
		testkit.ContentReply("tool: run_shell\ncommand: go vet ./..."),
		testkit.ContentReply("tool: done\nsummary: Nothing to change: go vet passes and the tests pass."))
	opts := buildOptions(t, srv, repo)
	var progress strings.Builder
	opts.Progress = &progress
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, rep.Status, rep.Error)
	_, noChange := rep.Finding(FindingNoChange)
	assert.True(t, noChange, "nothing changed")
	f, ok := rep.Finding(FindingOwnRunFailed)
	require.True(t, ok, "the finding: %+v", rep.Findings)
	assert.Equal(t, "the model said \"Nothing to change: go vet passes and the tests pass\"; its own last run of `go vet ./...` exited 1", f.Detail)
	var b strings.Builder
	rep.WriteSummary(&b)
	assert.Contains(t, b.String(), "summary: Nothing to change: go vet passes and the tests pass.\n  but the model said \"Nothing to change: go vet passes and the tests pass\"; its own last run of `go vet ./...` exited 1\n")
	assert.Contains(t, progress.String(), "warning: the model said")
	saved, err := opts.Store.LoadReport(rep.ID)
	require.NoError(t, err)
	_, ok = saved.Finding(FindingOwnRunFailed)
	assert.True(t, ok, "report.json holds the finding")
}

// TestPullBodyNamesTheModelsOwnFailingRun: the pull request's body says,
// right under the model's summary, that its own last run failed.
func TestPullBodyNamesTheModelsOwnFailingRun(t *testing.T) {
	t.Parallel()
	s := &run{rec: &Record{ID: "s1", Summary: "Fixed add; the tests pass."},
		report: &Report{Findings: []Finding{{Kind: FindingOwnRunFailed, Detail: "the model said \"the tests pass\"; its own last run of `pytest` exited 1"}}}}
	assert.Contains(t, s.pullBody(), "Fixed add; the tests pass.\n\n> [!WARNING]\n> But the model said \"the tests pass\"; its own last run of `pytest` exited 1.\n\n### Checks")
	s.report.Findings = nil
	assert.NotContains(t, s.pullBody(), "[!WARNING]\n> But")
}
