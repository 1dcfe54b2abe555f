package sandbox

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// The Docker backend's box (docker_box.go), against a real engine: the
// tests of box_test.go for a box that is a sibling container. The agent is
// this test binary (TestMain), bound into the container read-only.

// requireDockerBox returns a sandbox on the Docker backend that runs its
// commands in boxes, or skips.
func requireDockerBox(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	if cfg.Home == "" {
		cfg.Home = sharedHome
	}
	cfg.Agent = os.Args[0]
	sb := requireDockerWith(t, cfg)
	t.Cleanup(func() { sb.Close() })
	return sb
}

// dockerBoxContainer is the id of the workspace's running box container.
func dockerBoxContainer(t *testing.T, sb *Sandbox, ws string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(ws)
	require.NoError(t, err)
	sb.mu.Lock()
	b := sb.boxes[real]
	sb.mu.Unlock()
	require.NotNil(t, b, "no box for %s", ws)
	b.mu.Lock()
	defer b.mu.Unlock()
	require.NoError(t, b.failed, "the box did not start")
	require.NotNil(t, b.inst, "the box is not running")
	require.NotNil(t, b.inst.ctr, "the box is not a container")
	return b.inst.ctr.id
}

// gone reports whether the engine no longer has the container.
func gone(t *testing.T, cli *client.Client, id string) bool {
	_, err := cli.ContainerInspect(t.Context(), id, client.ContainerInspectOptions{})
	return cerrdefs.IsNotFound(err)
}

func TestDockerBoxBackgroundServer(t *testing.T) {
	py := requirePythonImage(t)
	sb := requireDockerBox(t, Config{ToolchainImages: map[string]string{"python": py}})
	t.Parallel()
	ws := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "page.txt"), []byte("served-from-the-box\n"), 0o644))
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	port := 20000 + rand.IntN(20000)
	srv, err := box.Start(t.Context(), []string{"python3", "-m", "http.server", fmt.Sprint(port), "--bind", "127.0.0.1"}, StartOptions{})
	require.NoError(t, err)
	id := dockerBoxContainer(t, sb, ws)
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
	out, running, _ := srv.Output()
	assert.True(t, running)
	assert.Contains(t, out, "GET /page.txt", "the server's log is readable while it runs")
	r, err := box.Run(t.Context(), []string{"cat", "/etc/hosts"}, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, boxHosts, r.Output)
	assert.Equal(t, id, dockerBoxContainer(t, sb, ws), "every command ran in the one container")
	require.NoError(t, srv.Stop(t.Context()))
	_, running, _ = srv.Output()
	assert.False(t, running)
}

func TestDockerBoxGoneAfterClose(t *testing.T) {
	sb := requireDockerBox(t, Config{})
	t.Parallel()
	cli := dockerClient(t)
	ws := newWorkspace(t)
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	token := fmt.Sprintf("%d.%06d", 5000+rand.IntN(1000), rand.IntN(1000000))
	_, err = box.Start(t.Context(), []string{"sleep", token}, StartOptions{})
	require.NoError(t, err)
	_, err = box.Start(t.Context(), []string{"bash", "-c", "setsid sleep " + token + "1 & sleep " + token + "2"}, StartOptions{})
	require.NoError(t, err)
	id := dockerBoxContainer(t, sb, ws)
	require.Eventually(t, func() bool { return len(boxPids(token)) >= 3 }, testkit.Patience, 20*time.Millisecond, "the box's sleeps never started")
	require.NoError(t, box.Close())
	assert.Eventually(t, func() bool { return len(boxPids(token)) == 0 }, testkit.Patience, 20*time.Millisecond, "processes of the box outlived its Close")
	assert.Eventually(t, func() bool { return gone(t, cli, id) }, testkit.Patience, 50*time.Millisecond, "the box's container outlived its Close")
	_, err = box.Run(t.Context(), []string{"true"}, RunOptions{})
	assert.ErrorContains(t, err, "closed")
}

func TestDockerBoxTimeoutKillsTheGroup(t *testing.T) {
	sb := requireDockerBox(t, Config{})
	t.Parallel()
	ws := newWorkspace(t)
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	id := dockerBoxContainer(t, sb, ws)
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
	assert.Equal(t, id, dockerBoxContainer(t, sb, ws), "the box went on after the timeout")
}

// A command that kills the agent ends with a note; the next command gets a
// new box container, and the old one is gone.
func TestDockerBoxAgentKilledByItsCommand(t *testing.T) {
	sb := requireDockerBox(t, Config{})
	t.Parallel()
	cli := dockerClient(t)
	ws := newWorkspace(t)
	_, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	id := dockerBoxContainer(t, sb, ws)
	r, err := sb.Run(t.Context(), []string{"bash", "-c", "kill -9 $PPID; sleep 5"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, -1, r.ExitCode)
	assert.Contains(t, r.Output, "core's agent in the box failed")
	r, err = sb.Run(t.Context(), []string{"echo", "again"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, "again\n", r.Output)
	assert.NotEqual(t, id, dockerBoxContainer(t, sb, ws))
	assert.Eventually(t, func() bool { return gone(t, cli, id) }, testkit.Patience, 50*time.Millisecond, "the dead box's container stayed")
}

// The limits hold in the Docker box: its container's cgroup (processes,
// memory: twice a command's), the ulimits (CPU time, file size) and core's
// watch of the workspace; the command's result names the limit, and the
// box goes on.
func TestDockerBoxLimits(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	tests := []struct {
		name   string
		limits Limits
		script string
		want   string
		check  func(t *testing.T, ws string, r Result)
	}{
		{
			name:   "fork bomb",
			limits: Limits{Processes: 64},
			script: "for i in $(seq 300); do sleep 60 & done; echo forked",
			want:   LimitProcesses,
		},
		{
			name:   "memory hog",
			limits: Limits{Memory: 64 << 20},
			script: "head -c 1G /dev/zero | tail > /dev/null && echo survived",
			want:   LimitMemory,
			check: func(t *testing.T, _ string, r Result) {
				assert.NotContains(t, r.Output, "survived")
			},
		},
		{
			name:   "workspace filler",
			limits: Limits{WorkspaceGrowth: 8 << 20},
			script: "i=0; while :; do i=$((i+1)); head -c 1M /dev/zero > fill$i; done",
			want:   LimitWorkspace,
			check: func(t *testing.T, _ string, r Result) {
				assert.False(t, r.TimedOut, "the watch, not the timeout, stopped it")
			},
		},
		{
			name:   "CPU spinner",
			limits: Limits{CPUTime: time.Second},
			script: "while :; do :; done",
			want:   LimitCPUTime,
			check: func(t *testing.T, _ string, r Result) {
				assert.False(t, r.TimedOut, "RLIMIT_CPU, not the timeout, stopped it")
			},
		},
		{
			name:   "huge file",
			limits: Limits{FileSize: 1 << 20},
			script: "head -c 64M /dev/zero > big",
			want:   LimitFileSize,
			check: func(t *testing.T, ws string, r Result) {
				fi, err := os.Stat(filepath.Join(ws, "big"))
				require.NoError(t, err)
				assert.LessOrEqual(t, fi.Size(), int64(1<<20))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := requireDockerBox(t, Config{Limits: tt.limits})
			ws := newWorkspace(t)
			r, err := sb.Run(t.Context(), []string{"bash", "-c", tt.script}, RunOptions{Workspace: ws, Timeout: 2 * time.Minute})
			require.NoError(t, err)
			dockerBoxContainer(t, sb, ws) // it ran in the box
			assert.Equal(t, tt.want, r.Limit, r.Output)
			assert.NotEqual(t, 0, r.ExitCode)
			assert.Contains(t, r.Output, "[stopped: the sandbox's limit on")
			if tt.check != nil {
				tt.check(t, ws, r)
			}
			after, err := sb.Run(t.Context(), []string{"echo", "after"}, RunOptions{Workspace: ws, Timeout: time.Minute})
			require.NoError(t, err)
			assert.Equal(t, "after\n", after.Output)
			assert.Empty(t, after.Limit, "a limit the attack hit is not the next command's")
		})
	}
}
