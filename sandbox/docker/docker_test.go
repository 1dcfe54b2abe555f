package docker

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/mount"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
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

// newWorkspace is a fresh git repository.
func newWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	out, err := exec.Command("git", "init", "-q", ws).CombinedOutput()
	require.NoError(t, err, string(out))
	return ws
}

func TestOwnTreeGivesARestoredCacheToTheSandboxUser(t *testing.T) {
	testkit.RequireRoot(t, "chown needs root")
	dir := t.TempDir()
	// As actions/cache restores it: everything the runner's user's.
	for _, p := range []string{"00", "00/x-d", "ab", "ab/y-a"} {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "-d") || strings.HasSuffix(p, "-a") {
			require.NoError(t, os.WriteFile(full, []byte("x"), 0o644))
		} else {
			require.NoError(t, os.Mkdir(full, 0o755))
		}
		require.NoError(t, os.Lchown(full, 1001, 1001))
	}
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "ab", "link")))
	require.NoError(t, os.Lchown(dir, 65534, 65534))
	require.NoError(t, ownTree(dir, 65534))
	require.NoError(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := e.Info()
		require.NoError(t, err)
		assert.Equal(t, 65534, fileOwner(fi), p)
		return nil
	}))
	fi, err := os.Stat("/etc/passwd")
	require.NoError(t, err)
	assert.Equal(t, 0, fileOwner(fi), "a link was followed")
}

// The pid rule of removeStale: a host core's sibling is stale once its
// process is gone, never its own, and never seen from a core in a container
// (whose /proc is not the host's).
func TestStaleParent(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	self := fmt.Sprintf("pid-%d", os.Getpid())
	gone := fmt.Sprintf("pid-%d", dead.Process.Pid)
	alive := fmt.Sprintf("pid-%d", os.Getppid())
	ctx := t.Context()
	assert.True(t, staleParent(ctx, nil, gone, self), "a gone process's sibling")
	assert.False(t, staleParent(ctx, nil, alive, self), "a living process's sibling")
	assert.False(t, staleParent(ctx, nil, self, self), "its own sibling")
	assert.False(t, staleParent(ctx, nil, gone, "0123456789ab"), "a host pid judged from a container")
	assert.False(t, staleParent(ctx, nil, "", self), "a sibling with no parent label")
}
