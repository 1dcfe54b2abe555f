package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/moby/moby/api/types/container"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDockerProbeFailures(t *testing.T) {
	t.Parallel()
	path := fakeBwrap(t, "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.")
	noSocket := "unix://" + filepath.Join(t.TempDir(), "docker.sock")

	t.Run("auto says why neither backend works", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Mode: ModeAuto, Path: path, DockerHost: noSocket})
		p := sb.Probe(t.Context())
		assert.False(t, p.Usable)
		assert.Empty(t, p.Backend)
		require.NotNil(t, p.Docker)
		assert.Contains(t, p.Docker.Cause, "no Docker engine socket at")
		err := p.Err()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "user namespaces are refused")
		assert.Contains(t, err.Error(), "the Docker backend is not usable: no Docker engine socket")
		_, err = sb.Run(t.Context(), []string{"true"}, RunOptions{Workspace: t.TempDir()})
		assert.ErrorContains(t, err, "the Docker backend is not usable")
	})

	t.Run("docker mode is fatal and skips bwrap", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Mode: ModeDocker, Path: path, DockerHost: noSocket})
		_, err := sb.Usable(t.Context())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "CORE_SESSION_SANDBOX=docker")
		assert.Contains(t, err.Error(), "not tried")
		assert.NotContains(t, err.Error(), "user namespaces")
	})

	t.Run("bwrap mode never tries Docker", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: path, DockerHost: noSocket})
		assert.Nil(t, sb.Probe(t.Context()).Docker)
	})

	t.Run("not an engine", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Mode: ModeDocker, Path: path, DockerHost: "tcp://127.0.0.1:9"})
		d := sb.Probe(t.Context()).Docker
		require.NotNil(t, d)
		assert.Contains(t, d.Cause, "does not answer")
	})
}

func TestParseModeDocker(t *testing.T) {
	t.Parallel()
	m, err := ParseMode(" Docker ")
	require.NoError(t, err)
	assert.Equal(t, ModeDocker, m)
	_, err = ParseMode("podman")
	assert.ErrorContains(t, err, "auto, bwrap, docker or off")
}

// The configuration every sibling gets, checked without an engine.
func TestDockerContainerConfig(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := newWorkspace(t)
	sb := New(Config{Home: home, Mode: ModeDocker, Lang: "C.UTF-8"})
	path := []string{"/usr/local/go/bin", "/usr/bin"}
	d := &dockerBackend{Backend: docker.Offline(sb.dockerSettings(), "sha256:abc", path, "core-id"), s: sb}
	c, err := d.containerFor(&docker.Image{Ref: d.Image(), Path: path}, []string{"go", "test", "./..."}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	cfg, host := c.Config, c.HostConfig
	assert.Equal(t, docker.SandboxUser, cfg.User)
	assert.Equal(t, []string{"go", "test", "./..."}, []string(cfg.Cmd))
	assert.Equal(t, ws, cfg.WorkingDir)
	assert.True(t, cfg.OpenStdin && cfg.StdinOnce && cfg.AttachStdin, "the sibling's lifetime hangs on core's attached stdin")
	assert.Equal(t, "core-id", cfg.Labels[docker.LabelParent])
	assert.Contains(t, cfg.Env, "PATH=/usr/local/go/bin:/usr/bin")
	assert.Contains(t, cfg.Env, "GOPROXY=off")
	assert.Equal(t, container.NetworkMode("none"), host.NetworkMode)
	assert.True(t, host.ReadonlyRootfs)
	assert.True(t, host.AutoRemove)
	assert.False(t, host.Privileged)
	assert.Equal(t, []string{"ALL"}, host.CapDrop)
	assert.Equal(t, []string{"no-new-privileges"}, host.SecurityOpt)
	require.NotNil(t, host.PidsLimit)
	limits := limit.DefaultLimits()
	assert.Equal(t, 2*int64(limits.Processes), *host.PidsLimit, "a container holds twice a command's processes")
	assert.Equal(t, 2*limits.Memory, host.Memory)
	ulimits := map[string]int64{}
	for _, u := range host.Ulimits {
		ulimits[u.Name] = u.Soft
	}
	assert.Equal(t, map[string]int64{"nofile": docker.NoFile, "cpu": int64(limits.CPUTime.Seconds()), "fsize": limits.FileSize}, ulimits)
	assert.Contains(t, host.Tmpfs, "/tmp")
	assert.Contains(t, host.Tmpfs, sandboxHome+"/.config", "a configuration directory every user may write")
	targets := map[string]bool{}
	for _, m := range host.Mounts {
		targets[m.Target] = m.ReadOnly
		assert.NotContains(t, m.Source, "docker.sock")
	}
	layer, err := sb.runs.Run(ws)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{
		ws:                                    false,
		filepath.Join(ws, ".git"):             true,
		goTelemetryMode:                       true,
		filepath.Join(home, "cache", "gomod"): true,
		layer:                                 false, // the run's layer alone: nothing shared
	}, targets)
}

func TestHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, words string
		container   bool
		want        string
	}{
		{name: "docker seccomp", words: "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.", container: true, want: "seccomp profile (Docker's default)"},
		{name: "kernel sysctl on a host", words: "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.", want: "kernel.unprivileged_userns_clone=1"},
		{name: "ubuntu uid map", words: "bwrap: setting up uid map: Permission denied", want: "kernel.apparmor_restrict_unprivileged_userns=0"},
		{name: "ubuntu loopback", words: "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted", container: true, want: "Ubuntu's AppArmor restriction"},
		{name: "unknown", words: "bwrap: Can't mount proc on /newroot/proc: Operation not permitted", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := hint(tt.words, tt.container)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.want)
			assert.True(t, strings.HasPrefix(got, "user namespaces are refused: "), got)
		})
	}
}
