package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
		runs    OwnRuns
		checks  []Check
		want    string
	}{
		{name: "the last run failed", summary: "the tests pass", runs: OwnRuns{{Command: "pytest", ExitCode: 1}}, checks: pytest,
			want: "the model said \"the tests pass\"; its own last run of `pytest` exited 1"},
		{name: "a check's last run failed before a passing other command", summary: "All tests pass.",
			runs: OwnRuns{{Command: "pytest", ExitCode: 2}, {Command: "python3 -m compileall .", ExitCode: 0}}, checks: pytest,
			want: "the model said \"All tests pass\"; its own last run of `pytest` exited 2"},
		{name: "it ran again and passed", summary: "the tests pass", runs: OwnRuns{}.Add(tools.Verification{Command: "pytest", ExitCode: 1}).Add(tools.Verification{Command: "pytest"}), checks: pytest},
		{name: "a killed run", summary: "the tests pass", runs: OwnRuns{{Command: "go test ./...", ExitCode: -1}},
			want: "the model said \"the tests pass\"; its own last run of `go test ./...` did not finish (killed, or it could not start)"},
		{name: "no claim", summary: "Tests still fail; I could not find the cause.", runs: OwnRuns{{Command: "pytest", ExitCode: 1}}, checks: pytest},
		{name: "no run", summary: "the tests pass"},
		{name: "an earlier failed run of a command that is no check", summary: "the tests pass",
			runs: OwnRuns{{Command: "go vet ./...", ExitCode: 1}, {Command: "go test ./...", ExitCode: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, OwnRunContradicts(tt.summary, tt.runs, tt.checks))
		})
	}
}
