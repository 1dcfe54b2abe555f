package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
)

// openPTY opens a pseudo-terminal: its master, for the test to type on
// and read, and its slave, the terminal core runs on.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err, "open a pseudo-terminal")
	t.Cleanup(func() { m.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0), "unlock the pseudo-terminal")
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err, "open the pseudo-terminal's slave")
	return m, s
}

// terminalOutput is what core wrote on the terminal, read from its
// master as it comes.
type terminalOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *terminalOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor waits until the terminal shows s, after the first after bytes,
// and returns where it ends.
func (o *terminalOutput) waitFor(t *testing.T, s string, after int) int {
	t.Helper()
	deadline := time.Now().Add(testkit.Patience)
	for time.Now().Before(deadline) {
		if out := o.String(); len(out) > after {
			if i := strings.Index(out[after:], s); i >= 0 {
				return after + i + len(s)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the terminal never showed %q; it shows:\n%s", s, o.String())
	return 0
}

// startOnTerminal starts core with args on a new pseudo-terminal, as its
// controlling terminal and in its foreground, as a shell starts it. The
// channel gets its exit status; a test that ends first kills it.
func startOnTerminal(t *testing.T, environ []string, args ...string) (<-chan int, *os.File, *terminalOutput) {
	t.Helper()
	master, slave := openPTY(t)
	cmd := exec.Command(coreProgram(t), args...)
	cmd.Env = append(environ, "TERM=dumb")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	require.NoError(t, cmd.Start())
	slave.Close()
	exited := make(chan int, 1)
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		_ = cmd.Wait()
		exited <- cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // an error once it has exited
		<-waited
	})
	out := &terminalOutput{}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.mu.Lock()
			out.buf.Write(buf[:n])
			out.mu.Unlock()
			if err != nil { // EIO once core and its children have closed it
				return
			}
		}
	}()
	return exited, master, out
}

// exitOf waits for core's exit status.
func exitOf(t *testing.T, exited <-chan int) int {
	t.Helper()
	select {
	case code := <-exited:
		return code
	case <-time.After(testkit.Patience):
		t.Fatalf("core did not exit within %s", testkit.Patience)
	}
	return -1
}

// TestCtrlCOnATerminal types Ctrl-C on the terminal a session runs on, as a
// person does: the terminal, not the test, sends core its SIGINT. In a
// turn it interrupts the turn and says so; a second within 3s ends the
// run, cancelled, its work kept. At the idle prompt it completes the run.
func TestCtrlCOnATerminal(t *testing.T) {
	t.Parallel()
	t.Run("twice in a turn", func(t *testing.T) {
		t.Parallel()
		never := make(chan struct{})
		t.Cleanup(func() { close(never) })
		repo, model, _, environ := mcpRun(t, llm.ToolCallReply("write_file", `{"path":"a.txt","content":"a"}`).Until(never))
		model.AllowExhaustion()
		exited, term, out := startOnTerminal(t, append(environ, "CORE_SESSION_IDLE_TIMEOUT=30m"), "session", "start", "--repo", repo, "--prompt", "write a")
		require.NoError(t, model.WaitRequests(t.Context(), 1), "the turn's request")

		_, err := term.Write([]byte{0x03})
		require.NoError(t, err)
		at := out.waitFor(t, "interrupted: the turn stops; Ctrl-C again within 3s ends the run", 0)
		_, err = term.Write([]byte{0x03})
		require.NoError(t, err)
		out.waitFor(t, ": cancelled", at)
		assert.NotEqual(t, 0, exitOf(t, exited), "a cancelled run is no success:\n%s", out)
	})
	t.Run("at the idle prompt", func(t *testing.T) {
		t.Parallel()
		repo, _, _, environ := mcpRun(t,
			llm.ToolCallReply("write_file", `{"path":"a.txt","content":"a"}`),
			llm.ToolCallReply("done", `{"summary":"wrote a"}`),
		)
		exited, term, out := startOnTerminal(t, append(environ, "CORE_SESSION_IDLE_TIMEOUT=30m"), "session", "start", "--repo", repo, "--prompt", "write a", "--dry-run")
		at := out.waitFor(t, "next instruction (/exit to stop)> ", 0)
		_, err := term.Write([]byte{0x03})
		require.NoError(t, err)
		out.waitFor(t, ": completed", at)
		assert.Equal(t, 0, exitOf(t, exited), "%s", out)
	})
}
