package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreagent/core/sandbox/limit"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runnerMounts are the mounts the runner gives a Docker action.
var runnerMounts = mounts{
	{Type: mount.TypeBind, Source: "/var/run/docker.sock", Destination: "/var/run/docker.sock"},
	{Type: mount.TypeBind, Source: "/home/runner/work/_temp/_github_home", Destination: "/github/home"},
	{Type: mount.TypeBind, Source: "/home/runner/work/_temp/_github_workflow", Destination: "/github/workflow"},
	{Type: mount.TypeBind, Source: "/home/runner/work/hello/hello", Destination: "/github/workspace"},
	{Type: mount.TypeBind, Source: "/home/runner/work/hello/hello/vendor", Destination: "/github/workspace/vendor"},
	{Type: mount.TypeTmpfs, Destination: "/scratch"},
}

func TestMountsHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, want, err string
	}{
		{name: "core home", path: "/github/home/.core/workspaces/abc", want: "/home/runner/work/_temp/_github_home/.core/workspaces/abc"},
		{name: "the mount itself", path: "/github/workspace", want: "/home/runner/work/hello/hello"},
		{name: "deepest mount wins", path: "/github/workspace/vendor/x", want: "/home/runner/work/hello/hello/vendor/x"},
		{name: "prefix is not a parent", path: "/github/homework", err: "/github/homework is not under a directory mounted from the host"},
		{name: "container layer", path: "/home/runner/work/_temp/core", err: "put CORE_HOME and the workspaces under one of them"},
		{name: "tmpfs has no host side", path: "/scratch/x", err: "not under a directory mounted from the host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := runnerMounts.host(tt.path)
			if tt.err != "" {
				require.ErrorIs(t, err, errNoMount)
				assert.ErrorContains(t, err, tt.err)
				assert.ErrorContains(t, err, "/github/home, /github/workflow")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSelfCandidates(t *testing.T) {
	t.Parallel()
	id := "4f3b2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
	other := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	mountinfo := "612 590 0:52 / / rw,relatime - overlay overlay rw\n" +
		"630 612 8:1 /var/lib/docker/containers/" + id + "/resolv.conf /etc/resolv.conf rw - ext4 /dev/sda1 rw\n" +
		"631 612 8:1 /var/lib/docker/containers/" + id + "/hostname /etc/hostname rw - ext4 /dev/sda1 rw\n"
	tests := []struct {
		name, mountinfo, cgroup, hostname string
		want                              []string
	}{
		{name: "mountinfo first, then cgroup, then hostname", mountinfo: mountinfo, cgroup: "12:pids:/docker/" + other + "\n", hostname: "4f3b2a1c0d9e", want: []string{id, other, "4f3b2a1c0d9e"}},
		{name: "systemd cgroup scope", cgroup: "0::/system.slice/docker-" + id + ".scope\n", hostname: "runner", want: []string{id, "runner"}},
		{name: "a host", mountinfo: "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n", cgroup: "0::/user.slice\n", hostname: "laptop", want: []string{"laptop"}},
		{name: "no duplicates", mountinfo: mountinfo, cgroup: "1:name=systemd:/docker/" + id + "\n", want: []string{id}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, SelfCandidates(tt.mountinfo, tt.cgroup, tt.hostname))
		})
	}
}

func TestShareWorkspace(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	outside := filepath.Join(t.TempDir(), "outside")
	require.NoError(t, os.WriteFile(outside, []byte("x"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "pkg"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pkg", "run.sh"), []byte("#!/bin/sh\n"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pkg", "a.go"), []byte("package a\n"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "link")))
	gitBefore, err := os.Stat(filepath.Join(ws, ".git", "config"))
	require.NoError(t, err)

	require.NoError(t, ShareWorkspace(ws))
	mode := func(p string) os.FileMode {
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		return fi.Mode().Perm()
	}
	assert.Equal(t, os.FileMode(0o777), mode(ws))
	assert.Equal(t, os.FileMode(0o777), mode(filepath.Join(ws, "pkg")))
	assert.Equal(t, os.FileMode(0o766), mode(filepath.Join(ws, "pkg", "run.sh")), "execute bits stay as they were")
	assert.Equal(t, os.FileMode(0o666), mode(filepath.Join(ws, "pkg", "a.go")))
	assert.Equal(t, os.FileMode(0o600), mode(outside), "a link is not followed")
	assert.Equal(t, gitBefore.Mode().Perm(), mode(filepath.Join(ws, ".git", "config")), ".git is left alone")
}

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
	d := &dockerBackend{Backend: Offline(sb.dockerSettings(), "sha256:abc", path, "core-id"), s: sb}
	c, err := d.containerFor(&Image{Ref: d.Image(), Path: path}, []string{"go", "test", "./..."}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	cfg, host := c.Config, c.HostConfig
	assert.Equal(t, SandboxUser, cfg.User)
	assert.Equal(t, []string{"go", "test", "./..."}, []string(cfg.Cmd))
	assert.Equal(t, ws, cfg.WorkingDir)
	assert.True(t, cfg.OpenStdin && cfg.StdinOnce && cfg.AttachStdin, "the sibling's lifetime hangs on core's attached stdin")
	assert.Equal(t, "core-id", cfg.Labels[LabelParent])
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
	assert.Equal(t, map[string]int64{"nofile": NoFile, "cpu": int64(limits.CPUTime.Seconds()), "fsize": limits.FileSize}, ulimits)
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
