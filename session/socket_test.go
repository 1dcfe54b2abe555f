package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// TestSocketInADeepDirectory: a session directory too deep for a socket
// address is reached through /proc/self/fd, by the run and its callers.
func TestSocketInADeepDirectory(t *testing.T) {
	t.Parallel()
	st, err := OpenStore(filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60)))
	require.NoError(t, err)
	rec := &Record{ID: "20261202-120000-abcdef", RecordLife: RecordLife{Status: state.Idle}, RecordSetup: RecordSetup{Checks: []contract.Check{}}}
	require.NoError(t, st.create(rec, nil))
	dir := st.Dir(rec.ID)
	require.Greater(t, len(filepath.Join(dir, live.SocketFile)), 108, "longer than a socket address may be")
	unlock, err := st.lock(rec.ID) // a live process holds it
	require.NoError(t, err)
	defer unlock()
	ctl := live.NewControl()
	ctl.SetStatus(state.Idle)
	closeSocket, err := live.Serve(t.Context(), dir, ctl)
	require.NoError(t, err)
	defer closeSocket()
	ack, err := st.Control(t.Context(), rec.ID, live.OpSend, "hello from afar")
	require.NoError(t, err)
	assert.Equal(t, "received: the idle run continues with it now", ack)
	require.Len(t, ctl.Peek(), 1)
	assert.Equal(t, "hello from afar", ctl.Peek()[0].Text)
	fi, err := os.Lstat(filepath.Join(dir, live.SocketFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}
