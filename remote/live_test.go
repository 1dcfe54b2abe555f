package remote_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/console"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/remote"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
)

// endedSession writes the record of an ended session and its event log
// of n events (the last a state change to completed).
func endedSession(t *testing.T, store *session.Store, id string, n int) {
	t.Helper()
	dir := store.Dir(id)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	rec, err := json.Marshal(map[string]any{"id": id, "repo": "acme/app", "status": "completed"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, session.RecordFile), rec, 0o600))
	var log bytes.Buffer
	for i := range n - 1 {
		fmt.Fprintf(&log, `{"time":"2026-12-01T09:00:00Z","kind":"turn","turn":%d,"tool":"read_file","target":"f%d.go"}`+"\n", i+1, i)
	}
	log.WriteString(`{"time":"2026-12-01T09:01:00Z","kind":"state","status":"completed"}` + "\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, live.EventsFile), log.Bytes(), 0o600))
}

func openStore(t *testing.T) *session.Store {
	t.Helper()
	s, err := session.OpenStore(t.TempDir())
	require.NoError(t, err)
	return s
}

// A run's whole log reaches the console, in order, in batches the console
// takes (more events than one batch holds), before finish returns.
func TestLiveSendsTheWholeLog(t *testing.T) {
	t.Parallel()
	client, cstore := newConsole(t)
	store := openStore(t)
	endedSession(t, store, "s-long", 1203)
	var out bytes.Buffer
	l := &remote.Live{Console: client, Store: store, ID: "s-long", Repo: "acme/app", Control: live.NewControl(), Out: &out, Every: 10 * time.Millisecond}
	l.Start(t.Context())()
	evs, err := cstore.Events(t.Context(), "s-long", -1, 5000)
	require.NoError(t, err)
	require.Len(t, evs, 1203, out.String())
	for i, e := range evs {
		require.Equal(t, int64(i), e.Seq)
	}
	assert.Equal(t, "turn 1  read_file f0.go", strings.TrimPrefix(evs[0].Line, "09:00:00  "))
	run, err := cstore.GetRun(t.Context(), "s-long")
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Status, "the last state event")
	assert.Equal(t, "octo", run.Actor)
}

// A console that refuses the events (the run is another's) is told once;
// Live gives up rather than retry, and the run goes on.
func TestLiveGivesUpWhenRefused(t *testing.T) {
	t.Parallel()
	client, cstore := newConsole(t)
	_, err := cstore.PutRun(t.Context(), &console.Run{SessionID: "s-taken", Repo: "acme/app", Actor: "mallory", Owner: "user:666",
		Status: "active", Trigger: console.TriggerCLI, StartedAt: time.Now(), ReceivedAt: time.Now()})
	require.NoError(t, err)
	store := openStore(t)
	endedSession(t, store, "s-taken", 3)
	var out bytes.Buffer
	l := &remote.Live{Console: client, Store: store, ID: "s-taken", Repo: "acme/app", Control: live.NewControl(), Out: &out, Every: 10 * time.Millisecond}
	l.Start(t.Context())()
	assert.Contains(t, out.String(), "live: the console refused the run's events")
	assert.Contains(t, out.String(), "only the identity that reports a run may send its events")
	assert.Equal(t, 1, strings.Count(out.String(), "refused"), "said once: "+out.String())
	evs, err := cstore.Events(t.Context(), "s-taken", -1, 10)
	require.NoError(t, err)
	assert.Empty(t, evs)
}

// A run that never started (no record) has nothing to send: finish
// returns, and the console never hears of it.
func TestLiveOfARunThatNeverStarted(t *testing.T) {
	t.Parallel()
	client, cstore := newConsole(t)
	var out bytes.Buffer
	l := &remote.Live{Console: client, Store: openStore(t), ID: "s-never", Repo: "acme/app", Control: live.NewControl(), Out: &out}
	l.Start(t.Context())()
	_, err := cstore.GetRun(t.Context(), "s-never")
	assert.ErrorIs(t, err, console.ErrNotFound)
	assert.Empty(t, out.String())
}

// A console that does not answer costs a run's end a few seconds (not the
// whole flush wait), and the run says its last events stay in its log.
func TestLiveOfADownConsole(t *testing.T) {
	t.Parallel()
	store := openStore(t)
	endedSession(t, store, "s-down", 3)
	var out ghfake.LockedBuffer
	l := &remote.Live{Console: &remote.Client{URL: "http://127.0.0.1:9", Token: "t"}, Store: store, ID: "s-down", Repo: "acme/app",
		Control: live.NewControl(), Out: &out, Every: 10 * time.Millisecond}
	l.Start(t.Context())()
	assert.Contains(t, out.String(), "live: the console does not answer (")
	assert.Contains(t, out.String(), "the run's last events stay in its events.jsonl")
	assert.NotContains(t, out.String(), "did not reach the console within", "given up for the console's silence, not the flush wait")
}

// A console that takes the connection and never answers costs a run's end
// as much as one that is down, not the whole flush wait: the request under
// way for longer than the console's grace is its silence.
func TestLiveOfAConsoleThatNeverAnswers(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release) // before Close, which waits for the handlers
	store := openStore(t)
	endedSession(t, store, "s-mute", 3)
	var out ghfake.LockedBuffer
	l := &remote.Live{Console: &remote.Client{URL: srv.URL, Token: "t"}, Store: store, ID: "s-mute", Repo: "acme/app",
		Control: live.NewControl(), Out: &out, Every: 10 * time.Millisecond}
	l.Start(t.Context())()
	assert.Positive(t, asked.Load(), "the run's events were sent")
	assert.Contains(t, out.String(), "live: the console does not answer (")
	assert.Contains(t, out.String(), "the run's last events stay in its events.jsonl")
	assert.NotContains(t, out.String(), "did not reach the console within", "given up for the console's silence, not the flush wait")
}
