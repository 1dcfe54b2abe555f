package session

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/state"
)

// pendingSession writes the record of a session that has not said it
// started yet, as Run does before start takes its lock.
func pendingSession(t *testing.T, st *Store) *Record {
	t.Helper()
	now := time.Now()
	rec := &Record{ID: NewID(now), RecordTask: RecordTask{Repo: "acme/app"}, RecordLife: RecordLife{Status: state.Pending}, RecordTimes: RecordTimes{CreatedAt: now, UpdatedAt: now}}
	require.NoError(t, st.create(rec, scrub.New()))
	return rec
}

// watchAsync starts Watch in the background; each event's text goes to
// seen, Watch's end to ended.
func watchAsync(t *testing.T, st *Store, id string) (seen chan string, ended chan error) {
	seen, ended = make(chan string, 16), make(chan error, 1)
	go func() {
		ended <- st.Watch(t.Context(), id, func(e live.Event) error {
			seen <- string(e.Kind) + " " + string(e.Status) + e.Text
			return nil
		})
	}()
	return seen, ended
}

// drain closes seen, once watch has ended, and returns what it holds.
func drain(seen chan string) []string {
	close(seen)
	var got []string
	for s := range seen {
		got = append(got, s)
	}
	return got
}

// A run is seen pending with its event log already open (start opens the
// log after taking the lock, before it records the run starting): watch
// follows it to its end rather than take pending for ended. Taking it for
// ended lost serve's whole run on the console, silently, on a busy machine.
func TestWatchFollowsARunSeenPending(t *testing.T) {
	t.Parallel()
	st, err := OpenStore(t.TempDir())
	require.NoError(t, err)
	rec := pendingSession(t, st)
	unlock, err := st.lock(rec.ID)
	require.NoError(t, err)
	log, err := live.OpenEvents(filepath.Join(st.Dir(rec.ID), live.EventsFile), scrub.New(), time.Now)
	require.NoError(t, err)
	defer log.Close()
	log.Add(live.Event{Kind: live.EventOutput, Text: "cloning"})
	seen, ended := watchAsync(t, st, rec.ID)
	select {
	case got := <-seen:
		require.Equal(t, "output cloning", got)
	case err := <-ended:
		t.Fatalf("watch ended before it handed over the first event: %v", err)
	case <-time.After(testkit.Patience):
		t.Fatal("waited too long for watch to hand over the first event")
	}
	// Watch has read the log while the record said pending.
	for _, to := range []state.Status{state.Starting, state.Cancelled} {
		require.NoError(t, rec.transition(to, time.Now()))
		require.NoError(t, st.save(rec, scrub.New()))
		log.Add(live.Event{Kind: live.EventState, Status: to})
	}
	unlock()
	require.NoError(t, testkit.Receive(t, ended, "watch to end with the run"))
	assert.Equal(t, []string{"state starting", "state cancelled"}, drain(seen), "every event after the one read while pending")
}

// A pending run no process drives is not followed: one that never took
// its lock has not started; one that died before it said it started is
// replayed, and watch returns.
func TestWatchOfAPendingRunWithNoProcess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		log     bool
		wantErr string
		want    []string
	}{
		{name: "no event log", wantErr: "has not started yet: watch it once it has"},
		{name: "an event log", log: true, want: []string{"output cloning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := OpenStore(t.TempDir())
			require.NoError(t, err)
			rec := pendingSession(t, st)
			if tt.log {
				log, err := live.OpenEvents(filepath.Join(st.Dir(rec.ID), live.EventsFile), scrub.New(), time.Now)
				require.NoError(t, err)
				log.Add(live.Event{Kind: live.EventOutput, Text: "cloning"})
				log.Close()
			}
			seen, ended := watchAsync(t, st, rec.ID)
			err = testkit.Receive(t, ended, "watch to end, not follow a run no process drives")
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, drain(seen))
		})
	}
}
