package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// runAsync starts Run in the background; the returned function waits for
// its report (testkit.Patience at most).
func runAsync(t *testing.T, opts Options) func() *Report {
	t.Helper()
	type result struct {
		rep *Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Run(t.Context(), opts)
		done <- result{rep, err}
	}()
	return func() *Report {
		t.Helper()
		select {
		case r := <-done:
			require.NoError(t, r.err)
			return r.rep
		case <-time.After(testkit.Patience):
			t.Fatal("the run did not end within testkit.Patience")
			return nil
		}
	}
}

// waitStatus waits (testkit.Patience at most) until the control says status.
func waitStatus(t *testing.T, c *live.Control, status state.Status) {
	t.Helper()
	require.Eventually(t, func() bool { return c.Status() == status }, testkit.Patience, 5*time.Millisecond,
		"waited for the run to be %s; it is %s", status, c.Status())
}

// waitRequests waits (testkit.Patience at most) until the model has had n requests.
func waitRequests(t *testing.T, srv *llm.ModelServer, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	require.NoError(t, srv.WaitRequests(ctx, n), "waited for request %d to the model", n)
}

// states are the state events of a session's log, in order.
func states(t *testing.T, st *Store, id string) []state.Status {
	t.Helper()
	var got []state.Status
	require.NoError(t, st.Watch(t.Context(), id, func(e live.Event) error {
		if e.Kind == live.EventState {
			got = append(got, e.Status)
		}
		return nil
	}))
	return got
}

func TestMessageMidRunIsActedOn(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	gate := make(chan struct{})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: list_dir\npath: .").Until(gate),
		llm.ContentReply("tool: write_file\npath: b.txt\ncontent: b"),
		llm.ContentReply("tool: done\nsummary: wrote a and b"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Control = live.NewControl()
	wait := runAsync(t, opts)
	waitRequests(t, srv, 2) // the second turn is with the model
	ack, err := opts.Live.Control.Send(live.Message{From: "alice", Text: "also write b.txt"})
	require.NoError(t, err)
	assert.Contains(t, ack, "before its next turn")
	close(gate)
	rep := wait()
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	third := reqs[2].Messages
	assert.Equal(t, "Message from alice:\nalso write b.txt\n\n/no_think", third[len(third)-1].Content, "the message is the last thing the model reads")
	assert.Equal(t, "b", testkit.Git(t, repo, "show", rep.Branch+":b.txt"))
	assert.Equal(t, []state.Status{state.Starting, state.Active, state.Idle, state.Completed}, states(t, opts.Services.Store, rep.ID))
	_, err = opts.Live.Control.Send(live.Message{From: "alice", Text: "more"})
	assert.ErrorContains(t, err, "only while it is active or idle", "an ended run takes no message")
}

// gateApprover approves every command and tells when it was asked.
type gateApprover struct{ asked chan string }

func (a gateApprover) Approve(_ context.Context, action string) (bool, error) {
	a.asked <- action
	return true, nil
}

func TestInterruptKillsTheCommandAndIdles(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: run_shell\ncommand: sleep 600"),
		llm.ContentReply("tool: write_file\npath: c.txt\ncontent: c"),
		llm.ContentReply("tool: done\nsummary: wrote a and c"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Control = live.NewControl()
	opts.Live.IdleTimeout = time.Hour
	asked := gateApprover{asked: make(chan string, 1)}
	opts.Services.Approver = asked
	wait := runAsync(t, opts)
	select {
	case action := <-asked.asked:
		assert.Contains(t, action, "sleep 600")
	case <-time.After(testkit.Patience):
		t.Fatal("waited too long for the command to be approved")
	}
	_, err := opts.Live.Control.Interrupt("alice")
	require.NoError(t, err)
	waitStatus(t, opts.Live.Control, state.Idle)
	rec, err := opts.Services.Store.Load(readID(t, opts.Services.Store))
	require.NoError(t, err)
	assert.Equal(t, state.Idle, rec.Status, "the record says idle too")
	assert.Equal(t, "a", readWS(t, rec.Workspace, "a.txt"), "the work stays")
	assert.False(t, rec.Landed, "an interrupt lands nothing")
	_, err = opts.Live.Control.Interrupt("alice")
	assert.ErrorContains(t, err, "only an active run", "an idle run has no turn to interrupt")

	_, err = opts.Live.Control.Send(live.Message{From: "alice", Text: "write c.txt instead"})
	require.NoError(t, err)
	waitRequests(t, srv, 4)
	waitStatus(t, opts.Live.Control, state.Idle)
	_, err = opts.Live.Control.Stop("alice")
	require.NoError(t, err)
	rep := wait()
	assert.Equal(t, state.Cancelled, rep.Status)
	assert.Equal(t, "stopped by alice", rep.Error)
	assert.True(t, rep.Landed, "the work done after the message landed")
	assert.Equal(t, "c", testkit.Git(t, repo, "show", rep.Branch+":c.txt"))
	third := srv.Requests()[2].Messages
	assert.Contains(t, third[len(third)-2].Content, "Interrupted by alice: run_shell was stopped")
	assert.Equal(t, []state.Status{state.Starting, state.Active, state.Idle, state.Active, state.Idle, state.Cancelled}, states(t, opts.Services.Store, rep.ID))
}

func TestIdleRunCompletesAtItsTimeout(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.IdleTimeout = time.Millisecond
	var progress syncBuilder
	opts.Live.Progress = &progress
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.True(t, rep.Landed)
	assert.Contains(t, progress.String(), "idle for 1ms: the run completes")
	assert.Equal(t, []state.Status{state.Starting, state.Active, state.Idle, state.Completed}, states(t, opts.Services.Store, rep.ID))
}

func TestInterruptedWorkLeftIdleEndsPartial(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	gate := make(chan struct{})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: never read").Until(gate),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Control = live.NewControl()
	opts.Live.IdleTimeout = time.Millisecond
	wait := runAsync(t, opts)
	waitRequests(t, srv, 2)
	_, err := opts.Live.Control.Interrupt("alice")
	require.NoError(t, err)
	rep := wait()
	close(gate)
	assert.Equal(t, state.Partial, rep.Status)
	assert.Contains(t, rep.Error, "interrupted: the work stays in the workspace, not landed")
	assert.False(t, rep.Landed)
}

// TestWatchReplaysARun: the event log of an ended run is what happened,
// in order: each state, each request, each tool call and its turn, each
// command's output and its end, each check's verdict, the landing.
func TestWatchReplaysARun(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: run_shell\ncommand: echo hello"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
	)
	opts := testOptions(t, srv, repo)
	opts.Services.Approver = gateApprover{asked: make(chan string, 1)}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	var got []string
	require.NoError(t, opts.Services.Store.Watch(t.Context(), rep.ID, func(e live.Event) error {
		assert.False(t, e.Time.IsZero(), "every event has its time")
		got = append(got, string(e.Kind)+" "+string(e.Status)+e.Tool+" "+e.Target+strings.TrimSpace(e.Text))
		return nil
	}))
	assert.Equal(t, []string{
		"state starting ",
		"state active ",
		"request  ",
		"tool write_file a.txt",
		"turn write_file a.txt",
		"request  ",
		"output  hello",
		"command  echo hello",
		"tool run_shell echo hello",
		"turn run_shell echo hello",
		"request  ",
		"tool done ",
		"turn done ",
		"land  " + rep.Branch + " " + rep.Commit,
		"state idle ",
		"state completed ",
	}, got)
	fi, err := os.Stat(filepath.Join(opts.Services.Store.Dir(rep.ID), live.EventsFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestSocketSendInterruptStop(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
		llm.ContentReply("tool: write_file\npath: b.txt\ncontent: b"),
		llm.ContentReply("tool: done\nsummary: wrote b"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Control = live.NewControl()
	opts.Live.IdleTimeout = time.Hour
	wait := runAsync(t, opts)
	waitStatus(t, opts.Live.Control, state.Idle)
	id := readID(t, opts.Services.Store)
	ctx := t.Context()
	_, err := opts.Services.Store.Control(ctx, id, live.OpInterrupt, "")
	assert.ErrorContains(t, err, "only an active run can be interrupted")
	_, err = opts.Services.Store.Control(ctx, id, "explode", "")
	assert.ErrorContains(t, err, `unknown operation "explode"`)
	ack, err := opts.Services.Store.Control(ctx, id, live.OpSend, "now write b.txt")
	require.NoError(t, err)
	assert.Equal(t, "received: the idle run continues with it now", ack)
	waitRequests(t, srv, 4)
	waitStatus(t, opts.Live.Control, state.Idle)
	_, err = opts.Services.Store.Control(ctx, id, live.OpStop, "")
	require.NoError(t, err)
	rep := wait()
	assert.Equal(t, state.Cancelled, rep.Status)
	assert.Equal(t, "b", testkit.Git(t, repo, "show", rep.Branch+":b.txt"), "the second instruction landed on the same branch")
	assert.Equal(t, "a", testkit.Git(t, repo, "show", rep.Branch+":a.txt"))
	assert.Equal(t, "wrote b\nwrote a", testkit.Git(t, repo, "log", "--format=%s", "-2", rep.Branch), "a second commit on the branch")
	third := srv.Requests()[2].Messages
	assert.Contains(t, third[len(third)-1].Content, "Message from local user ")
	_, err = opts.Services.Store.Control(ctx, id, live.OpSend, "too late")
	assert.ErrorContains(t, err, "only a live run")
	_, err = os.Lstat(filepath.Join(opts.Services.Store.Dir(id), live.SocketFile))
	assert.ErrorIs(t, err, os.ErrNotExist, "the socket goes with the run")
}

// readID is the id of the store's only session.
func readID(t *testing.T, st *Store) string {
	t.Helper()
	recs, err := st.List()
	require.NoError(t, err)
	require.Len(t, recs, 1)
	return recs[0].ID
}

func readWS(t *testing.T, ws, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, name))
	require.NoError(t, err)
	return string(b)
}

// syncBuilder is a strings.Builder safe for the run's writers.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWatchFollowsALiveRun: watch hands over events as the run writes
// them and returns when the run ends.
func TestWatchFollowsALiveRun(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Control = live.NewControl()
	opts.Live.IdleTimeout = time.Hour
	wait := runAsync(t, opts)
	waitStatus(t, opts.Live.Control, state.Idle)
	seen := make(chan state.Status, 16)
	watched := make(chan error, 1)
	go func() {
		watched <- opts.Services.Store.Watch(t.Context(), readID(t, opts.Services.Store), func(e live.Event) error {
			if e.Kind == live.EventState {
				seen <- e.Status
			}
			return nil
		})
	}()
	for _, want := range []state.Status{state.Starting, state.Active, state.Idle} {
		select {
		case got := <-seen:
			assert.Equal(t, want, got)
		case <-time.After(testkit.Patience):
			t.Fatalf("waited too long for watch to hand over %s", want)
		}
	}
	select {
	case err := <-watched:
		t.Fatalf("watch returned while the run lived: %v", err)
	default:
	}
	_, err := opts.Live.Control.Stop("alice")
	require.NoError(t, err)
	wait()
	select {
	case err := <-watched:
		require.NoError(t, err)
	case <-time.After(testkit.Patience):
		t.Fatal("waited too long for watch to end with the run")
	}
	assert.Equal(t, state.Cancelled, <-seen, "the last event is the run's end")
}
