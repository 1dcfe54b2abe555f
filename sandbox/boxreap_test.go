package sandbox

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leftover is a shell fragment that starts a writer, named by token in
// the box's process list, the way escape says (setsid, a daemon's double
// fork, a process group of its own), and waits until it wrote once: the writer
// appends to the workspace's file "leftover" while it lives.
func leftover(escape, token string) string {
	writer := `sh -c 'while :; do echo x >> leftover; sleep 0.05; done' ` + token
	wait := "\nuntil [ -s leftover ]; do sleep 0.01; done"
	switch escape {
	case "setsid":
		return "setsid " + writer + " &" + wait
	case "double fork":
		// daemon(3): fork, a session of its own, fork again; the first
		// child exits at once, so the writer is an orphan from the start.
		return `python3 -c 'import os,sys; os.fork() and os._exit(0); os.setsid(); os.fork() and os._exit(0); os.execvp("sh", ["sh", "-c", sys.argv[1], sys.argv[2]])' 'while :; do echo x >> leftover; sleep 0.05; done' ` + token + wait
	case "process group":
		return "set -m; " + writer + " &" + wait
	}
	panic(escape)
}

func newToken() string {
	return fmt.Sprintf("core-leftover-%d", rand.Uint64())
}

// Attack: a command's child leaves its process group (setsid, a double
// fork, a group of its own) and lives on in the box, writing the workspace
// after its command ended. Every process a command started ends with it:
// when it exits, when its timeout runs out, when its runner is killed
// under it. Only a background process's stay, until it is stopped.
func TestBoxCommandLeavesNoProcess(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	for _, escape := range []string{"setsid", "double fork", "process group"} {
		t.Run(escape, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			box, err := sb.Box(t.Context(), ws)
			require.NoError(t, err)
			cases := []struct {
				name   string
				script string
				opts   RunOptions
				check  func(t *testing.T, r Result)
			}{
				{
					name:   "exit",
					script: leftover(escape, newToken()) + "\necho done",
					check: func(t *testing.T, r Result) {
						assert.Equal(t, 0, r.ExitCode, r.Output)
						assert.Contains(t, r.Output, "done")
					},
				},
				{
					name:   "timeout",
					script: leftover(escape, newToken()) + "\nsleep 1000",
					opts:   RunOptions{Timeout: 2 * time.Second},
					check: func(t *testing.T, r Result) {
						assert.True(t, r.TimedOut, r.Output)
					},
				},
				{
					// The command kills its runner: what it left is the
					// agent's, which ends it.
					name:   "runner killed",
					script: leftover(escape, newToken()) + "\nkill -9 $PPID; sleep 1000",
					opts:   RunOptions{Timeout: time.Minute},
					check: func(t *testing.T, r Result) {
						assert.Equal(t, 128+9, r.ExitCode, r.Output)
						assert.False(t, r.TimedOut, "the runner's end, not the timeout, ended it: %s", r.Output)
						assert.NotContains(t, r.Output, "core's agent in the box failed")
					},
				},
			}
			for _, tc := range cases {
				token := tc.script[strings.Index(tc.script, "core-leftover-"):]
				token = token[:strings.IndexAny(token, " ;&\n")]
				r, err := box.Run(t.Context(), []string{"bash", "-c", tc.script}, tc.opts)
				require.NoError(t, err, tc.name)
				tc.check(t, r)
				// The runner reaped everything before the command's end
				// was reported: no waiting.
				assert.Empty(t, boxPids(token), "%s: a process the command left lives on in the box", tc.name)
				assertStill(t, filepath.Join(ws, "leftover"))
				require.NoError(t, os.Remove(filepath.Join(ws, "leftover")))
			}
		})
	}
}

// assertStill checks that nothing writes file any more: it does not grow
// across ten of the writer's periods.
func assertStill(t *testing.T, file string) {
	t.Helper()
	before, err := os.Stat(file)
	require.NoError(t, err)
	time.Sleep(500 * time.Millisecond) // ten times the writer's pause
	after, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, before.Size(), after.Size(), "something still writes %s", file)
}

// A background process keeps what it started, detached or not, until it
// is stopped; then all of it ends.
func TestBoxBackgroundProcessStopEndsWhatItLeft(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	ws := newWorkspace(t)
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	token := newToken()
	p, err := box.Start(t.Context(), []string{"bash", "-c", leftover("setsid", token) + "\necho started; sleep 1000"}, StartOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { out, _, _ := p.Output(); return strings.Contains(out, "started") }, testkit.Patience, 20*time.Millisecond, "the background command never started its writer")
	assert.NotEmpty(t, boxPids(token), "a background command's processes outlive nothing yet")
	require.NoError(t, p.Stop(t.Context()))
	assert.Empty(t, boxPids(token), "a process the stopped background command left lives on")
	assertStill(t, filepath.Join(ws, "leftover"))
}
