package sandbox

import (
	"os"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// The Docker backend's box (sandbox/docker/box.go), against a real engine: the
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
	inst := runningBox(t, sb, ws)
	require.NotNil(t, inst.ctr, "the box is not a container")
	return inst.ctr.ID()
}

// gone reports whether the engine no longer has the container.
func gone(t *testing.T, cli *client.Client, id string) bool {
	_, err := cli.ContainerInspect(t.Context(), id, client.ContainerInspectOptions{})
	return cerrdefs.IsNotFound(err)
}

func TestDockerBoxBackgroundServer(t *testing.T) {
	py := requireToolchainImage(t, "python")
	sb := requireDockerBox(t, Config{ToolchainImages: map[string]string{"python": py}})
	t.Parallel()
	ws := newWorkspace(t)
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	srv, port := startPageServer(t, box, ws)
	id := dockerBoxContainer(t, sb, ws)
	checkPageServer(t, box, srv, port)
	assert.Equal(t, id, dockerBoxContainer(t, sb, ws), "every command ran in the one container")
}

func TestDockerBoxGoneAfterClose(t *testing.T) {
	sb := requireDockerBox(t, Config{})
	t.Parallel()
	cli := dockerClient(t)
	ws := newWorkspace(t)
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	id := dockerBoxContainer(t, sb, ws)
	closeWithSleepers(t, box)
	assert.Eventually(t, func() bool { return gone(t, cli, id) }, testkit.Patience, 50*time.Millisecond, "the box's container outlived its Close")
}

func TestDockerBoxTimeoutKillsTheGroup(t *testing.T) {
	sb := requireDockerBox(t, Config{})
	t.Parallel()
	ws := newWorkspace(t)
	box, err := sb.Box(t.Context(), ws)
	require.NoError(t, err)
	id := dockerBoxContainer(t, sb, ws)
	timeOut(t, box)
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
	// The command's parent is its runner (boxreap.go); the agent is the
	// runner's.
	r, err := sb.Run(t.Context(), []string{"bash", "-c", "kill -9 $(cut -d' ' -f4 /proc/$PPID/stat); sleep 5"}, RunOptions{Workspace: ws, Timeout: time.Minute})
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
	for _, tt := range limitAttacks() {
		if tt.bwrapOnly {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.attack(t, requireDockerBox(t, Config{Limits: tt.limits}))
		})
	}
}
