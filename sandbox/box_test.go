package sandbox

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/mask"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boxPids lists the host pids whose command line holds token.
func boxPids(token string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(token)) && !bytes.Contains(b, []byte("-test.run")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestBoxBackgroundServerOnLoopback(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	ws := newWorkspace(t)
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	srv, port := startPageServer(t, box, ws)
	assert.NotEmpty(t, srv.ID())
	checkPageServer(t, box, srv, port)
}

// startPageServer starts python3's http.server in box, in the background
// on a random port of its loopback, serving ws with a page.txt in it.
func startPageServer(t *testing.T, box *Box, ws string) (*Process, int) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "page.txt"), []byte("served-from-the-box\n"), 0o644))
	port := 20000 + rand.IntN(20000)
	srv, err := box.Start(t.Context(), []string{"python3", "-m", "http.server", fmt.Sprint(port), "--bind", "127.0.0.1"}, StartOptions{})
	require.NoError(t, err)
	return srv, port
}

// checkPageServer checks that later commands of box reach srv (fetchFromBox),
// that its log is readable while it runs, that the box has its own
// /etc/hosts (not what the host's has), and that srv stops when told.
func checkPageServer(t *testing.T, box *Box, srv *Process, port int) {
	t.Helper()
	fetchFromBox(t, box, port)
	// The server logs the request as it answers; the log reaches the
	// process's buffer a moment later, which on a loaded machine may be
	// after the fetch ended: read it until the line is there, a bounded
	// while.
	var out string
	var running bool
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		out, running, _ = srv.Output()
		if strings.Contains(out, "GET /page.txt") || time.Now().After(deadline) {
			break
		}
	}
	assert.True(t, running)
	assert.Contains(t, out, "GET /page.txt", "the server's log is readable while it runs")
	r, err := box.Run(t.Context(), []string{"cat", "/etc/hosts"}, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, boxHosts, r.Output)
	require.NoError(t, srv.Stop(t.Context()))
	_, running, _ = srv.Output()
	assert.False(t, running)
}

// fetchFromBox fetches page.txt from the server the box runs on port, by
// 127.0.0.1 and by localhost, in a later command of the box, and checks
// what it served. The server takes a moment to listen: the command tries
// for a bounded while, and says what it waited for.
func fetchFromBox(t *testing.T, box *Box, port int) {
	t.Helper()
	fetch := `import sys, time, urllib.request
for i in range(600):
    try:
        print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode(), end="")
        sys.exit(0)
    except OSError as e:
        err = e
        time.sleep(0.1)
print("never reached", sys.argv[1], err)
sys.exit(1)`
	for _, host := range []string{"127.0.0.1", "localhost"} {
		r, err := box.Run(t.Context(), []string{"python3", "-c", fetch, fmt.Sprintf("http://%s:%d/page.txt", host, port)}, RunOptions{Timeout: 2 * time.Minute})
		require.NoError(t, err)
		assert.Equal(t, 0, r.ExitCode, r.Output)
		assert.Contains(t, r.Output, "served-from-the-box", host)
	}
}

func TestBoxProcessesGoneAfterClose(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	box, err := sb.Box(t.Context(), newWorkspace(t))
	require.NoError(t, err)
	closeWithSleepers(t, box)
}

// closeWithSleepers starts sleeps in the box (one of them out of its
// command's group and session), closes the box, and checks that none of
// them is left and that the box runs nothing more.
func closeWithSleepers(t *testing.T, box *Box) {
	t.Helper()
	token := fmt.Sprintf("%d.%06d", 5000+rand.IntN(1000), rand.IntN(1000000))
	_, err := box.Start(t.Context(), []string{"sleep", token}, StartOptions{})
	require.NoError(t, err)
	// A process that left the command's group and session.
	_, err = box.Start(t.Context(), []string{"bash", "-c", "setsid sleep " + token + "1 & sleep " + token + "2"}, StartOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(boxPids(token)) >= 3 }, testkit.Patience, 20*time.Millisecond, "the box's sleeps never started")
	require.NoError(t, box.Close())
	assert.Eventually(t, func() bool { return len(boxPids(token)) == 0 }, testkit.Patience, 20*time.Millisecond, "processes of the box outlived its Close")
	_, err = box.Run(t.Context(), []string{"true"}, RunOptions{})
	assert.ErrorContains(t, err, "closed")
}

func TestBoxTimeoutKillsTheGroupAndTheBoxGoesOn(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	ws := newWorkspace(t)
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	timeOut(t, box)
}

// timeOut runs a command in the box past its timeout and checks that its
// whole group went and that the box runs the next command.
func timeOut(t *testing.T, box *Box) {
	t.Helper()
	token := fmt.Sprintf("%d.%06d", 6000+rand.IntN(1000), rand.IntN(1000000))
	r, err := box.Run(t.Context(), []string{"bash", "-c", "sleep " + token + " & sleep " + token + "; echo never"}, RunOptions{Timeout: 2 * time.Second})
	require.NoError(t, err)
	assert.True(t, r.TimedOut)
	assert.Equal(t, -1, r.ExitCode)
	assert.NotContains(t, r.Output, "never")
	assert.Eventually(t, func() bool { return len(boxPids(token)) == 0 }, testkit.Patience, 20*time.Millisecond, "the timed-out command's group outlived it")
	r, err = box.Run(t.Context(), []string{"echo", "still", "here"}, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, "still here\n", r.Output)
}

func TestBoxPipe(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	box, err := sb.Box(t.Context(), newWorkspace(t))
	require.NoError(t, err)
	// Reads lines on fd 3, answers each upper-cased on fd 4.
	p, err := box.Start(t.Context(), []string{"python3", "-c", `import os
r = os.fdopen(3, "r"); w = os.fdopen(4, "w")
for line in r:
    w.write(line.upper()); w.flush()
print("pipe closed")`}, StartOptions{Pipe: true})
	require.NoError(t, err)
	pipe := p.Pipe()
	require.NotNil(t, pipe)
	_, err = io.WriteString(pipe, "hello box\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(pipe).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "HELLO BOX\n", line)
	require.NoError(t, pipe.Close())
	select {
	case <-p.Done():
	case <-time.After(testkit.Patience):
		t.Fatal("the process never saw its pipe close")
	}
	out, running, code := p.Output()
	assert.False(t, running)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "pipe closed")
}

func TestBoxOutliveParent(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	killParentMidCommand(t, 7000, true, boxPids, "the box outlived its killed parent")
}

// agentReply is a fake agent on one end of a socket pair: it reads the
// request and writes reply as is.
func agentReply(t *testing.T, reply []byte) (boxagent.Exit, error) {
	t.Helper()
	host, agent := net.Pipe()
	go func() {
		defer agent.Close()
		_, _ = boxagent.ReadRequest(bufio.NewReader(agent))
		_, _ = agent.Write(reply)
		// Then silence, as a hung agent would: the host must not wait for
		// more than the frame said.
		time.Sleep(50 * time.Millisecond)
	}()
	defer host.Close()
	require.NoError(t, sendRequest(host, boxagent.Request{Argv: []string{"true"}, Dir: "/"}))
	var out bytes.Buffer
	return readUntilExit(bufio.NewReader(host), &out, nil)
}

func frame(kind byte, payload string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(1+len(payload)))
	return append(append(b, kind), payload...)
}

func TestBoxHostileReplies(t *testing.T) {
	t.Parallel()
	huge := binary.BigEndian.AppendUint32(nil, 1<<30)
	tests := []struct {
		name    string
		reply   []byte
		wantErr string
	}{
		{"oversized frame", append(huge, boxagent.FrameOutput), "a length of 1073741824"},
		{"zero length", []byte{0, 0, 0, 0}, "a length of 0"},
		{"garbage", []byte("HTTP/1.1 200 OK\r\n\r\n"), "malformed"},
		{"unknown kind", frame('Z', ""), "kind 'Z'"},
		{"request from the box", frame(boxagent.FrameRequest, "{}"), "kind 'R'"},
		{"unknown field", frame(boxagent.FrameExit, `{"code":0,"extra":1}`), "unknown field"},
		{"two values", frame(boxagent.FrameExit, `{"code":0}{}`), "more than one"},
		{"exit out of range", frame(boxagent.FrameExit, `{"code":4096}`), "exit status 4096"},
		{"long error", frame(boxagent.FrameExit, `{"code":1,"err":"`+strings.Repeat("x", boxagent.MaxExitErr+1)+`"}`), "an error of"},
		{"bad pid", frame(boxagent.FrameStarted, `{"pid":-4}`), "pid -4"},
		{"unknown limit", frame(boxagent.FrameExit, `{"code":1,"limit":"disk"}`), "a limit \"disk\" core does not know"},
		{"pipe without a pipe", frame(boxagent.FramePipe, "x"), "without a pipe"},
		{"cut payload", frame(boxagent.FrameOutput, "abc")[:6], "cut in its payload"},
		{"closed before the end", frame(boxagent.FrameOutput, "abc"), "closed the connection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := agentReply(t, tt.reply)
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
	exit, err := agentReply(t, append(frame(boxagent.FrameStarted, `{"pid":2}`), frame(boxagent.FrameExit, `{"code":3}`)...))
	require.NoError(t, err)
	assert.Equal(t, 3, exit.Code)
}

func TestVanishedMask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out  string
		want bool
	}{
		{"bwrap: Can't mkdir /etc/core-sandbox-test-0.d: Read-only file system\n", true},
		{"bwrap: Can't bind mount /oldroot/etc/gone-for-good-4493 on /newroot/etc/gone-for-good-4493: No such file", true},
		{"bwrap: Can't mkdir /etc: Read-only file system\n", false}, // it is there: something else
		{"go: Can't mkdir /etc/core-sandbox-test-0.d\n", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, vanishedMask(tt.out), tt.out)
	}
}

// A masked directory removed between the profile and bwrap (another test
// package's planted directory, in CI) costs one retry, not the command.
func TestLaunchRetriesAVanishedMask(t *testing.T) {
	requireBwrap(t)
	testkit.RequireRoot(t, "a mask under /etc, where only root plants one")
	t.Parallel()
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH")})
	gone := fmt.Sprintf("/etc/core-vanished-%d.d", os.Getpid())
	p, err := sb.profileFor("true")
	require.NoError(t, err)
	p.workspace = newWorkspace(t)
	p.maskScans = append(p.maskScans, mask.RootOnly{Dirs: []string{gone}})
	p.masks = append(p.masks, "--perms", "0000", "--tmpfs", gone) // as made while it was there
	r, err := sb.launch(t.Context(), sb.Probe(t.Context()).Bwrap, p, []string{"echo", "ran"}, RunOptions{Workspace: p.workspace, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, 0, r.ExitCode, r.Output)
	assert.Equal(t, "ran\n", r.Output)
}

// localhost resolves inside, whatever the host's /etc/hosts says: in the
// box and in a sandbox of its own.
func TestLocalhostResolves(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	ws := newWorkspace(t)
	for _, noBox := range []bool{false, true} {
		r, err := sb.Run(t.Context(), []string{"python3", "-c", "import socket; print(sorted({a[4][0] for a in socket.getaddrinfo('localhost', 80)}))"},
			RunOptions{Workspace: ws, NoBox: noBox, Timeout: time.Minute})
		require.NoError(t, err)
		assert.Equal(t, 0, r.ExitCode, r.Output)
		assert.Contains(t, r.Output, "'127.0.0.1'", "NoBox: %v", noBox)
		r, err = sb.Run(t.Context(), []string{"cat", "/etc/hosts"}, RunOptions{Workspace: ws, NoBox: noBox, Timeout: time.Minute})
		require.NoError(t, err)
		assert.Equal(t, boxHosts, r.Output, "NoBox: %v", noBox)
	}
}

// The go command's telemetry is off inside, in the box and in a sandbox of
// its own, with bwrap and with Docker: no telemetry process of go's beside
// each command, no counter files in the fresh /tmp. GOTELEMETRY in the
// environment alone left it on (local).
func TestGoTelemetryOffInside(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	checkGoTelemetryOff(t, newTestSandbox(t, ModeBwrap), newWorkspace(t))
}

func TestDockerGoTelemetryOffInside(t *testing.T) {
	t.Parallel()
	checkGoTelemetryOff(t, requireDockerBox(t, Config{}), newWorkspace(t))
}

func checkGoTelemetryOff(t *testing.T, sb *Sandbox, ws string) {
	t.Helper()
	for _, noBox := range []bool{false, true} {
		r, err := sb.Run(t.Context(), []string{"go", "env", "GOTELEMETRY"}, RunOptions{Workspace: ws, NoBox: noBox, Timeout: time.Minute})
		require.NoError(t, err)
		assert.Equal(t, 0, r.ExitCode, r.Output)
		assert.Equal(t, "off\n", r.Output, "NoBox: %v", noBox)
		// The rest of the configuration directory stays writable: the
		// other tools' own directories.
		r, err = sb.Run(t.Context(), []string{"sh", "-c", "mkdir -p /tmp/.config/other && echo ok > /tmp/.config/other/f && cat /tmp/.config/other/f"},
			RunOptions{Workspace: ws, NoBox: noBox, Timeout: time.Minute})
		require.NoError(t, err)
		assert.Equal(t, "ok\n", r.Output, "NoBox: %v", noBox)
	}
}

// A command that kills the agent ends with a note, not an error that would
// end the run; the next command gets a new box.
func TestBoxAgentKilledByItsCommand(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	ws := newWorkspace(t)
	// What it printed may or may not have left the agent before it died.
	// The command's parent is its runner (boxreap.go); the agent is the
	// runner's.
	r, err := sb.Run(t.Context(), []string{"bash", "-c", "kill -9 $(cut -d' ' -f4 /proc/$PPID/stat); sleep 5"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, -1, r.ExitCode)
	assert.Contains(t, r.Output, "core's agent in the box failed")
	r, err = sb.Run(t.Context(), []string{"echo", "again"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, "again\n", r.Output)
	requireBoxed(t, sb, ws)
}

func TestSweepBoxDirs(t *testing.T) {
	// The pid of a process that has ended: a child waited for.
	c := exec.Command("true")
	require.NoError(t, c.Run())
	dead := filepath.Join(os.TempDir(), fmt.Sprintf("core-box-%d-test%d", c.Process.Pid, rand.IntN(1<<30)))
	live := filepath.Join(os.TempDir(), fmt.Sprintf("core-box-%d-test%d", os.Getppid(), rand.IntN(1<<30)))
	for _, d := range []string{dead, live} {
		require.NoError(t, os.MkdirAll(filepath.Join(d, "s"), 0o700))
	}
	defer os.RemoveAll(live)
	sweepBoxDirs(os.TempDir())
	assert.NoDirExists(t, dead, "a dead core's box directory is swept")
	assert.DirExists(t, live, "a live core's box directory stays")
}
