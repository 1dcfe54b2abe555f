package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/sandbox"
)

func TestNarrowerCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command string
		narrows bool
	}{
		{"go test ./...", true},
		{"go test ./a ./b", true},
		{"go test -race ./pkg/...", true},
		{"go test .", false},
		{"go test", false},
		{"go test ./pkg", false},
		{"go test -count=1 -race ./pkg", false},
		{"go test -run TestX ./...", false},
		{"go test -run=TestX ./...", false},
		{"go test -timeout 5m ./pkg", false},
		{"go test -p 1 -run TestX", false},
		{"pytest", true},
		{"pytest tests/test_x.py::test_y", false},
		{"pytest -k slow", false},
		{"python3 -m pytest", true},
		{"cargo test", true},
		{"cargo test parses", false},
		{"cargo test --release -- --nocapture", true},
		{"npm test", false},
		{"make", false},
		{"go", false},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			got := NarrowerCommand(strings.Fields(tt.command))
			if tt.narrows {
				assert.Contains(t, got, "A narrower command takes less")
			} else {
				assert.Empty(t, got, "already the narrowest of its kind, or nothing core knows to narrow")
			}
		})
	}
}

func TestTimeWent(t *testing.T) {
	t.Parallel()
	s := time.Second
	assert.Empty(t, timeWent(120*s, 0, false), "a command that did not compile ran for all its time")
	assert.Equal(t, "It compiled for 1m50s (not counted against the timeout), then ran for 2m0s.", timeWent(230*s, 110*s, false))
	assert.Contains(t, timeWent(480*s, 470*s, true), "It was still compiling: it compiled for 7m50s")
}

// TestKilledAfterCompiling is what the model reads of a go test of one
// package killed after a long compile: where its time went, that the
// build cache keeps what it compiled, and no narrower command, for it was
// one package already (issue #35: the advice was wrong).
func TestKilledAfterCompiling(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct {
		name, command string
		result        sandbox.Result
		want          []string
		not           []string
	}{
		{
			name: "one package, compiled then timed out", command: "go test .",
			result: sandbox.Result{TimedOut: true, ExitCode: -1, Duration: 230 * s, Built: 110 * s},
			want: []string{"it ran for 3m50s, past the shell timeout of 2m0s", "It compiled for 1m50s (not counted against the timeout), then ran for 2m0s.",
				"the same command again goes on from there", "--shell-timeout"},
			not: []string{"narrower"},
		},
		{
			name: "one test, at the ceiling", command: "go test -run TestX ./...",
			result: sandbox.Result{TimedOut: true, AtCeiling: true, ExitCode: -1, Duration: 480 * s, Built: 470 * s},
			want:   []string{"up to the build ceiling of 8m0s (--build-ceiling)", "It was still compiling", "--shell-timeout"},
			not:    []string{"narrower"},
		},
		{
			name: "every package, not compiling", command: "go test ./...",
			result: sandbox.Result{TimedOut: true, ExitCode: -1, Duration: 120 * s},
			want:   []string{"past the shell timeout of 2m0s", "A narrower command takes less: one package"},
			not:    []string{"compiled", "build cache"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shellResult(tt.command, tt.result, &Env{Commands: Commands{ShellTimeout: 2 * time.Minute}}, true)
			for _, w := range tt.want {
				assert.Contains(t, got.Output, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, got.Output, n)
			}
			assert.Contains(t, got.Note, "core killed")
		})
	}
	r := shellResult("go test .", sandbox.Result{TimedOut: true, Built: 110 * s, Duration: 230 * s}, &Env{Commands: Commands{ShellTimeout: 2 * time.Minute}}, true)
	assert.Contains(t, r.Note, "after compiling for 1m50s (not counted)")
	r = shellResult("go test .", sandbox.Result{TimedOut: true, AtCeiling: true, Built: 470 * s, Duration: 480 * s}, &Env{Commands: Commands{ShellTimeout: 2 * time.Minute}}, true)
	assert.Contains(t, r.Note, "still compiling at the build ceiling of 8m0s (--build-ceiling)")
}
