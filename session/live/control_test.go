package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/state"
)

// TestSocketRefusesAnotherUser: the session directory's 0700 keeps other
// users away from the socket; behind it, the run checks the caller's uid.
// With both file modes opened up, another user's request still comes back
// refused and changes nothing. Needs root, to run a child as nobody.
func TestSocketRefusesAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "session")
	require.NoError(t, os.Mkdir(dir, 0o700)) // as the store makes it
	ctl := NewControl()
	ctl.SetStatus(state.Idle)
	closeSocket, err := Serve(t.Context(), dir, ctl)
	require.NoError(t, err)
	defer closeSocket()
	sock := filepath.Join(dir, SocketFile)

	// A python3 that another user may run: the system's, not a user's
	// shim under a private home.
	python := ""
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("needs a system python3 to dial as another user")
	}
	child := func() string {
		// Connects, sends one request, prints the answer or why not.
		script := `import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("dial:", e.strerror.lower()); sys.exit(0)
try:
    s.sendall(b'{"op":"send","text":"let me in"}\n')
except BrokenPipeError:
    pass # refused before the request was read: the answer is waiting
print(s.makefile().readline())`
		cmd := exec.Command(python, "-c", script, sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	for _, d := range []string{filepath.Dir(filepath.Dir(dir)), filepath.Dir(dir)} {
		require.NoError(t, os.Chmod(d, 0o755)) // the test's own temporary tree
	}
	assert.Contains(t, child(), "dial: permission denied", "nobody cannot reach the socket in its private directory")

	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.Chmod(sock, 0o666))
	out := child()
	assert.Contains(t, out, "refused: only the user who started the run (uid 0) may reach it, not uid 65534", out)
	assert.Empty(t, ctl.Peek(), "the refused message was not queued")
}

// TestFinishOnlyAnIdleRun: Finish is refused unless the run is idle, and
// one the idle run did not see before it moved on is dropped, not kept
// to end its next wait.
func TestFinishOnlyAnIdleRun(t *testing.T) {
	t.Parallel()
	ctl := NewControl()
	for _, s := range []state.Status{state.Pending, state.Starting, state.Active, state.Completed} {
		ctl.SetStatus(s)
		_, err := ctl.Finish()
		assert.ErrorContains(t, err, "the run is "+string(s)+": only an idle run can be finished")
		assert.False(t, ctl.Finishing())
	}
	ctl.SetStatus(state.Idle)
	ack, err := ctl.Finish()
	require.NoError(t, err)
	assert.Equal(t, "finishing: the idle run completes now", ack)
	assert.True(t, ctl.Finishing())
	select {
	case <-ctl.Wake():
	default:
		t.Fatal("Finish did not wake the idle run")
	}
	ctl.SetStatus(state.Active)
	assert.False(t, ctl.Finishing(), "a Finish the idle run did not see outlived its wait")
}

// TestAnInterruptNoTurnTookEndsWithTheIdle: an interrupt between two
// turns waits for the next one, unless the run goes idle first; then the
// next instruction's first turn runs.
func TestAnInterruptNoTurnTookEndsWithTheIdle(t *testing.T) {
	t.Parallel()
	ctl := NewControl()
	ctl.SetStatus(state.Active)
	_, err := ctl.Interrupt("alice")
	require.NoError(t, err)
	turn, done := ctl.StartTurn(t.Context())
	_, interrupted := ctl.Interrupted(turn)
	assert.True(t, interrupted, "the next turn takes the interrupt")
	done()

	_, err = ctl.Interrupt("alice")
	require.NoError(t, err)
	ctl.SetStatus(state.Idle)
	ctl.SetStatus(state.Active)
	turn, done = ctl.StartTurn(t.Context())
	defer done()
	_, interrupted = ctl.Interrupted(turn)
	assert.False(t, interrupted, "the interrupt outlived the idle it asked for")
}
