package live

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a Controller that records what it was asked.
type recorder struct {
	mu   sync.Mutex
	asks []string
}

func (r *recorder) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asks = append(r.asks, s)
}

func (r *recorder) Send(m Message) (string, error) {
	r.note("send " + m.From + ": " + m.Text)
	return "received", nil
}

func (r *recorder) Interrupt(from string) (string, error) {
	r.note("interrupt " + from)
	return "interrupted", nil
}

func (r *recorder) Stop(from string) (string, error) {
	r.note("stop " + from)
	return "", errors.New("the run has already ended (completed)")
}

// TestServeAndCall: each operation reaches the controller as the local
// user who called, its answer or its refusal comes back, an unknown
// operation is refused, and the socket is 0600 and gone once closed.
func TestServeAndCall(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "session")
	require.NoError(t, os.Mkdir(dir, 0o700))
	ctl := &recorder{}
	closeSocket, err := Serve(t.Context(), dir, ctl)
	require.NoError(t, err)
	fi, err := os.Lstat(filepath.Join(dir, SocketFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	tests := []struct {
		name, op, text, want, err string
	}{
		{name: "send", op: OpSend, text: "hello", want: "received"},
		{name: "interrupt", op: OpInterrupt, want: "interrupted"},
		{name: "a refusal", op: OpStop, err: "session s1: the run has already ended (completed)"},
		{name: "an unknown operation", op: "rm", err: `session s1: unknown operation "rm": send, interrupt or stop`},
	}
	for _, tt := range tests {
		got, err := Call(t.Context(), dir, "s1", tt.op, tt.text)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, got, tt.name)
	}
	me := LocalUser(os.Getuid())
	assert.Equal(t, []string{"send " + me + ": hello", "interrupt " + me, "stop " + me}, ctl.asks)

	closeSocket()
	_, err = os.Lstat(filepath.Join(dir, SocketFile))
	assert.ErrorIs(t, err, os.ErrNotExist, "the socket is removed when closed")
	_, err = Call(t.Context(), dir, "s1", OpSend, "late")
	assert.ErrorContains(t, err, "reach session s1 through")
}
