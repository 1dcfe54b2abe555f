package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coreagent/core/session/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeWith makes a store holding one session per status, ended at the
// times given, each with a workspace holding a file, a read-only directory
// and a link out of the workspace.
func storeWith(t *testing.T, ended map[state.Status]time.Time) (*Store, map[state.Status]string, string) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	st, err := OpenStore(home)
	require.NoError(t, err)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	require.NoError(t, os.WriteFile(outside, []byte("not the session's"), 0o600))
	ids := map[state.Status]string{}
	i := 0
	for status, at := range ended {
		i++
		at := at
		r := &Record{ID: NewID(at.Add(time.Duration(i) * time.Second)), RecordLife: RecordLife{Status: status}, RecordTimes: RecordTimes{CreatedAt: at, UpdatedAt: at}}
		if status.Terminal() {
			r.EndedAt = &at
		}
		require.NoError(t, st.create(r, nil))
		ws := st.WorkspaceDir(r.ID)
		require.NoError(t, os.MkdirAll(filepath.Join(ws, "ro", "deep"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(ws, "ro", "deep", "f"), make([]byte, 1000), 0o600))
		require.NoError(t, os.Chmod(filepath.Join(ws, "ro", "deep"), 0o500))
		require.NoError(t, os.Chmod(filepath.Join(ws, "ro"), 0o500))
		require.NoError(t, os.Symlink(outside, filepath.Join(ws, "link")))
		ids[status] = r.ID
	}
	return st, ids, outside
}

func TestStoreRemove(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	st, ids, outside := storeWith(t, map[state.Status]time.Time{state.Completed: now})
	id := ids[state.Completed]

	r, err := st.Remove(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, id, r.ID)
	assert.GreaterOrEqual(t, r.Bytes, int64(1000), "the workspace's bytes are counted")
	assert.NoDirExists(t, st.Dir(id))
	assert.NoDirExists(t, st.WorkspaceDir(id))
	assert.FileExists(t, outside, "a link in the workspace is removed, never followed")

	_, err = st.Remove(t.Context(), id)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no session "+id)
}

func TestStoreRemoveRefusesRunning(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	st, ids, _ := storeWith(t, map[state.Status]time.Time{state.Active: now})
	id := ids[state.Active]
	unlock, err := st.lock(id) // a live process runs it
	require.NoError(t, err)
	defer unlock()

	_, err = st.Remove(t.Context(), id)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is running")
	assert.DirExists(t, st.Dir(id))
	assert.DirExists(t, st.WorkspaceDir(id))
}

func TestStorePrune(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	old := now.Add(-10 * 24 * time.Hour)
	st, ids, _ := storeWith(t, map[state.Status]time.Time{
		state.Completed: old,
		state.Failed:    old,
		state.Partial:   now.Add(-time.Hour),
		state.Cancelled: old,
		state.Active:    old,
	})
	unlock, err := st.lock(ids[state.Active])
	require.NoError(t, err)
	defer unlock()

	removed, err := st.Prune(t.Context(), now.Add(-7*24*time.Hour))
	require.NoError(t, err)
	var got []string
	for _, r := range removed {
		got = append(got, r.ID)
	}
	assert.ElementsMatch(t, []string{ids[state.Completed], ids[state.Failed], ids[state.Cancelled]}, got)
	assert.DirExists(t, st.Dir(ids[state.Partial]), "a session that ended after the cutoff stays")
	assert.DirExists(t, st.Dir(ids[state.Active]), "a running session stays")
}

func TestLookStoreCreatesNothing(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "absent")
	_, err := LookStore(home)
	require.ErrorIs(t, err, ErrNoStore)
	assert.NoDirExists(t, home)

	_, err = OpenStore(home)
	require.NoError(t, err)
	st, err := LookStore(home)
	require.NoError(t, err)
	recs, err := st.List()
	require.NoError(t, err)
	assert.Empty(t, recs)
}

func TestOpenStoreLeavesAHomeItDidNotMake(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.Mkdir(home, 0o755))
	require.NoError(t, os.Chmod(home, 0o755))
	_, err := OpenStore(home)
	require.NoError(t, err)
	fi, err := os.Stat(home)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "an existing $CORE_HOME keeps its mode")
	for _, sub := range []string{"sessions", "workspaces"} {
		fi, err := os.Stat(filepath.Join(home, sub))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), sub)
	}
}

func TestOpenStoreNamesAnUnusableHome(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "not-a-dir")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := OpenStore(filepath.Join(file, "home"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(CORE_HOME) cannot be used")
	assert.Contains(t, err.Error(), "set CORE_HOME to a writable directory")
}
