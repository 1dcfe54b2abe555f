package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

func TestTransitions(t *testing.T) {
	t.Parallel()
	all := []state.Status{state.Pending, state.Starting, state.Active, state.Idle, state.Completed, state.Partial, state.Failed, state.Cancelled, state.BudgetExhausted}
	legal := map[[2]state.Status]bool{
		{state.Pending, state.Starting}: true, {state.Pending, state.Failed}: true, {state.Pending, state.Cancelled}: true,
		{state.Starting, state.Active}: true, {state.Starting, state.Failed}: true, {state.Starting, state.Cancelled}: true,
		{state.Active, state.Idle}: true, {state.Active, state.Partial}: true, {state.Active, state.Failed}: true, {state.Active, state.Cancelled}: true,
		{state.Idle, state.Active}: true, {state.Idle, state.Completed}: true, {state.Idle, state.Partial}: true, {state.Idle, state.Failed}: true, {state.Idle, state.Cancelled}: true,
		{state.Completed, state.Starting}: true, {state.Partial, state.Starting}: true, {state.Failed, state.Starting}: true, {state.Cancelled, state.Starting}: true,
		{state.Active, state.BudgetExhausted}: true, {state.BudgetExhausted, state.Starting}: true, // a top-up
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, from := range all {
		for _, to := range all {
			t.Run(string(from)+"→"+string(to), func(t *testing.T) {
				t.Parallel()
				r := &Record{ID: "x", RecordLife: RecordLife{Status: from, FailureKind: state.FailStalled, Error: "old"}}
				err := r.transition(to, now)
				if !legal[[2]state.Status{from, to}] {
					require.Error(t, err)
					assert.Contains(t, err.Error(), "illegal transition")
					assert.Equal(t, from, r.Status, "an illegal transition changes nothing")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, to, r.Status)
				if to.Terminal() {
					require.NotNil(t, r.EndedAt)
				} else {
					assert.Nil(t, r.EndedAt)
					assert.Empty(t, r.Error, "a session that runs again forgets its old failure")
				}
			})
		}
	}
}

func TestStoreSaveLoadList(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	st, err := OpenStore(home)
	require.NoError(t, err)
	base := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for i, status := range []state.Status{state.Completed, state.Failed, state.Partial} {
		r := &Record{ID: NewID(base.Add(time.Duration(i) * time.Minute)), RecordLife: RecordLife{Status: status}, RecordSetup: RecordSetup{Checks: []contract.Check{}}, RecordTimes: RecordTimes{CreatedAt: base.Add(time.Duration(i) * time.Minute)}}
		require.NoError(t, st.create(r, nil))
	}
	recs, err := st.List()
	require.NoError(t, err)
	require.Len(t, recs, 3)
	assert.Equal(t, state.Partial, recs[0].Status, "newest first")
	assert.Equal(t, state.Completed, recs[2].Status)

	fi, err := os.Stat(filepath.Join(st.Dir(recs[0].ID), RecordFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	for _, d := range []string{home, filepath.Join(home, "sessions"), st.Dir(recs[0].ID)} {
		fi, err := os.Stat(d)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), d)
	}

	_, err = st.Load("../etc")
	assert.ErrorContains(t, err, "not a session id")
	_, err = st.Load("20990101-000000-000000")
	assert.ErrorContains(t, err, "no session 20990101-000000-000000")

	// A damaged record is skipped by List and named by Load.
	require.NoError(t, os.WriteFile(filepath.Join(st.Dir(recs[1].ID), RecordFile), []byte("{not json"), 0o600))
	_, err = st.Load(recs[1].ID)
	assert.ErrorContains(t, err, "is damaged")
	recs2, err := st.List()
	require.NoError(t, err)
	assert.Len(t, recs2, 2)
}

func TestOrphanedSessionIsFailed(t *testing.T) {
	t.Parallel()
	st, err := OpenStore(t.TempDir())
	require.NoError(t, err)
	r := &Record{ID: "20261130-120000-aaaaaa", RecordLife: RecordLife{Status: state.Active}, RecordSetup: RecordSetup{Checks: []contract.Check{}}}
	require.NoError(t, st.create(r, nil))

	// While a process holds the lock, it is running.
	unlock, err := st.lock(r.ID)
	require.NoError(t, err)
	got, err := st.Load(r.ID)
	require.NoError(t, err)
	assert.Equal(t, state.Active, got.Status)
	_, err = st.lock(r.ID)
	assert.ErrorContains(t, err, "running in another process")

	// Once the lock is gone (the process died), it is an orphan.
	unlock()
	got, err = st.Load(r.ID)
	require.NoError(t, err)
	assert.Equal(t, state.Failed, got.Status)
	assert.Equal(t, state.FailInfrastructure, got.FailureKind)
	assert.Contains(t, got.Error, "orphaned")
}

func TestLockWait(t *testing.T) {
	t.Parallel()
	st, err := OpenStore(t.TempDir())
	require.NoError(t, err)
	r := &Record{ID: "20261130-120000-bbbbbb", RecordLife: RecordLife{Status: state.Completed}, RecordSetup: RecordSetup{Checks: []contract.Check{}}}
	require.NoError(t, st.create(r, nil))
	unlock, err := st.lock(r.ID)
	require.NoError(t, err)

	// Held for good: a cancelled wait gives up with the lock's error.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = st.lockWait(ctx, r.ID)
	assert.ErrorContains(t, err, "running in another process")

	// Released while waiting: the wait takes it.
	got := make(chan error, 1)
	go func() {
		u, err := st.lockWait(t.Context(), r.ID)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	assert.NoError(t, <-got)
}
