package session

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session/state"
)

// watcher is a progress writer that runs a hook once when what it has
// received contains a string.
type watcher struct {
	mu    sync.Mutex
	b     strings.Builder
	hooks []watchHook
}

type watchHook struct {
	want string
	fn   func()
	done bool
}

func (w *watcher) on(want string, fn func()) {
	w.hooks = append(w.hooks, watchHook{want: want, fn: fn})
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.b.Write(p)
	text := w.b.String()
	var run []func()
	for i := range w.hooks {
		if h := &w.hooks[i]; !h.done && strings.Contains(text, h.want) {
			h.done = true
			run = append(run, h.fn)
		}
	}
	w.mu.Unlock()
	for _, fn := range run {
		fn()
	}
	return len(p), nil
}

func (w *watcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

type approveAll struct{}

func (approveAll) Approve(context.Context, string) (bool, error) { return true, nil }

// TestProgressWhileATurnTakesLong: a slow model and a slow command are
// never silent. The model's reply and the command's end wait for the
// heartbeat that must come first, so nothing depends on timing.
func TestProgressWhileATurnTakesLong(t *testing.T) {
	t.Parallel()
	repo := fixtureRepo(t, map[string]string{"README": "hi\n"})
	fifo := filepath.Join(t.TempDir(), "go-on")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	modelGate := make(chan struct{})
	command := "echo compiling the world; read x < " + fifo + "; echo finished"
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: \""+command+"\"").Until(modelGate),
		llm.ContentReply("tool: done\nsummary: ran it"),
	)
	opts := testOptions(t, srv, repo)
	opts.Services.Approver = approveAll{}
	opts.Live.Heartbeat = time.Millisecond
	w := &watcher{}
	w.on("turn 1/40  waiting for the model  (", func() { close(modelGate) })
	w.on(": compiling the world", func() {
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				_, _ = f.WriteString("go\n")
				f.Close()
			}
		}()
	})
	opts.Live.Progress = w
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)

	out := w.String()
	assert.Contains(t, out, "turn 1/40  waiting for the model  (", "a slow model gets a heartbeat")
	assert.Regexp(t, `(?m)^turn 1/40  run_shell echo compiling the world; read x < .*$`, out, "the command's line comes when it starts")
	assert.Regexp(t, `(?m)^turn 1/40  run_shell .*  \(\d+s\): compiling the world$`, out, "the heartbeat shows the command's last line")
	assert.Contains(t, out, "finished\n", "a person sees the output of the command they approved")
	assert.Regexp(t, `(?m)^turn 1/40  run_shell .*  \d.*  \d+ tokens$`, out, "the turn still ends with its line")
	assert.NotContains(t, out, "\x1b", "progress is plain text")
}

func TestBeatKeepsTheLastLine(t *testing.T) {
	t.Parallel()
	b := &beat{}
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
	b := &beat{every: 10 * time.Second, now: func() time.Time { return clock }, label: "turn 1/40  waiting for the model", since: start}
	clock = start.Add(42 * time.Second)
	assert.Equal(t, "turn 1/40  waiting for the model  (42s)", b.line(clock))

	b.relabel("turn 1/40  run_shell go test ./git/", false)
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
	b := &beat{every: 10 * time.Second, now: func() time.Time { return clock }, label: "turn 1/40  run_shell npm test", since: start}
	var progress io.Writer = beatOutput{Writer: b, hb: b}
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
