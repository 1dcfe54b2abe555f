package heartbeat

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox"
)

func TestBeatKeepsTheLastLine(t *testing.T) {
	t.Parallel()
	b := &Beat{}
	for _, chunk := range []string{"one\ntw", "o\n\n   \n", "thr"} {
		_, err := b.Write([]byte(chunk))
		require.NoError(t, err)
	}
	assert.Equal(t, "thr", b.lastLine(), "a line still being written shows")
	_, _ = b.Write([]byte("ee\n\n"))
	assert.Equal(t, "three", b.lastLine(), "blank lines do not hide the last one")
	_, _ = b.Write([]byte(strings.Repeat("x", 10000)))
	assert.LessOrEqual(t, len(b.partial), 4096, "an endless line is bounded")
}

// TestBeatShowsTheRealElapsedTime: each heartbeat reads the clock: the
// time counts from when the command started (not the turn), grows from
// beat to beat, and a last line older than a beat (one that says how long
// something ran when it was written) says how old it is.
func TestBeatShowsTheRealElapsedTime(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := start
	b := &Beat{every: 10 * time.Second, now: func() time.Time { return clock }, label: "turn 1/40  waiting for the model", since: start}
	clock = start.Add(42 * time.Second)
	assert.Equal(t, "turn 1/40  waiting for the model  (42s)", b.line(clock))

	b.Relabel("turn 1/40  run_shell go test ./git/", false)
	clock = clock.Add(time.Second)
	_, _ = b.Write([]byte("waiting for the module download under way (running for 0s)\n"))
	tests := []struct {
		name  string
		after time.Duration
		want  string
	}{
		{name: "fresh line", after: 5 * time.Second,
			want: "turn 1/40  run_shell go test ./git/  (6s): waiting for the module download under way (running for 0s)"},
		{name: "a beat later", after: 11 * time.Second,
			want: "turn 1/40  run_shell go test ./git/  (12s): waiting for the module download under way (running for 0s)  [11s ago]"},
		{name: "minutes later", after: 17 * time.Minute,
			want: "turn 1/40  run_shell go test ./git/  (17m1s): waiting for the module download under way (running for 0s)  [17m0s ago]"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, b.line(start.Add(43*time.Second).Add(tt.after)), tt.name)
	}
	clock = start.Add(43*time.Second + 17*time.Minute)
	_, _ = b.Write([]byte("ok  \texample.com/git\t0.8s\n"))
	assert.Equal(t, "turn 1/40  run_shell go test ./git/  (17m1s): ok example.com/git 0.8s", b.line(clock), "new output is fresh again")
}

// TestBeatShowsAWaitOnlyWhileItLasts: a wait the command has under way
// (the module download, the dependency step: sandbox.Waits) shows in each
// beat with how long it has lasted, and once it ended the beat shows the
// command's output again, never the ended wait (issue #35).
func TestBeatShowsAWaitOnlyWhileItLasts(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := start
	b := &Beat{every: 10 * time.Second, now: func() time.Time { return clock }, label: "turn 1/40  run_shell npm test", since: start}
	var progress io.Writer = Output{Writer: b, Beat: b}
	w, ok := progress.(sandbox.Waits)
	require.True(t, ok, "a turn's progress takes the sandbox's waits")

	clock = start.Add(time.Second)
	ended := w.Waiting("the dependency step: npm ci (the network on, no workspace code; not counted against the timeout)")
	clock = start.Add(111 * time.Second)
	assert.Equal(t, "turn 1/40  run_shell npm test  (1m51s): waiting for the dependency step: npm ci (the network on, no workspace code; not counted against the timeout)  [1m50s so far]", b.line(clock))

	ended()
	clock = start.Add(250 * time.Second)
	assert.Equal(t, "turn 1/40  run_shell npm test  (4m10s)", b.line(clock), "an ended wait is not shown again")
	_, _ = progress.Write([]byte("# tests 3\n"))
	assert.Equal(t, "turn 1/40  run_shell npm test  (4m10s): # tests 3", b.line(clock))
}
