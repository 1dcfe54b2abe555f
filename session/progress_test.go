package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
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
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
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
