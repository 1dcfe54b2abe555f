package sandbox

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// waitRecorder is a progress writer with Waits, as a heartbeat is: it
// records the output written and each wait, begun and ended.
type waitRecorder struct {
	mu    sync.Mutex
	out   bytes.Buffer
	waits []string // what each wait was for
	open  int      // waits begun and not ended
	began chan string
}

func newWaitRecorder() *waitRecorder { return &waitRecorder{began: make(chan string, 8)} }

func (w *waitRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

func (w *waitRecorder) Waiting(what string) func() {
	w.mu.Lock()
	w.waits = append(w.waits, what)
	w.open++
	w.mu.Unlock()
	w.began <- what
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			w.open--
			w.mu.Unlock()
		})
	}
}

// state is what was written, the waits, and how many are still open.
func (w *waitRecorder) state() (string, []string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String(), append([]string(nil), w.waits...), w.open
}

// TestClaimDownloadWaitEndsWithIt: a command that waits for the module
// download under way tells a heartbeat so through Waits, not in a line of
// its output, and the wait ends when the download does: a heartbeat then
// never shows it again (issue #35: "waiting for the module download under
// way ... [2m10s ago]" long after it ended).
func TestClaimDownloadWaitEndsWithIt(t *testing.T) {
	t.Parallel()
	sb := New(Config{Home: t.TempDir(), Mode: ModeOff, Path: os.Getenv("PATH")})
	ws := t.TempDir()
	_, release, err := sb.claimDownload(t.Context(), ws, "key", nil)
	require.NoError(t, err)
	require.NotNil(t, release, "the first command holds the download")

	progress := newWaitRecorder()
	done := make(chan error, 1)
	go func() {
		_, mine, err := sb.claimDownload(t.Context(), ws, "key", progress)
		if mine != nil {
			mine()
		}
		done <- err
	}()
	what := testkit.Receive(t, progress.began, "the second command to say it waits for the download")
	assert.Contains(t, what, "the module download under way")
	_, _, open := progress.state()
	assert.Equal(t, 1, open, "the wait holds while the download runs")

	release()
	require.NoError(t, testkit.Receive(t, done, "the second command to stop waiting once the download ended"))
	out, waits, open := progress.state()
	assert.Equal(t, 0, open, "the wait ended with the download")
	assert.Len(t, waits, 1)
	assert.Empty(t, out, "the wait is no line of output that a heartbeat would repeat")
}
