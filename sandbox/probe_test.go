package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/lang"
)

// fakeBwrap puts a bwrap on a PATH of its own that answers --version and
// otherwise prints words and exits 1, as a bwrap that cannot create
// namespaces does. It returns the PATH: the fake first, then the real one.
func fakeBwrap(t *testing.T, words string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'bubblewrap 0.8.0'; exit 0; fi\ncat >&2 <<'WORDS'\n" + words + "\nWORDS\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755))
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

const userNSRefused = "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'."

func TestProbeFailureModes(t *testing.T) {
	t.Parallel()
	path := fakeBwrap(t, userNSRefused)
	ws := t.TempDir()
	gofmt := []string{"gofmt", "-l", "."}
	goTest := []string{"go", "test", "./..."}

	t.Run("auto falls back to no sandbox and refuses test", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Mode: ModeAuto, Path: path})
		p := sb.Probe(t.Context())
		assert.False(t, p.Usable)
		assert.Equal(t, "bubblewrap 0.8.0", p.Version)
		assert.Contains(t, p.Output, "No permissions to creating new namespace")
		assert.Contains(t, p.Cause, "user namespaces are refused")
		assert.Contains(t, p.Err().Error(), "bwrap said: "+userNSRefused)

		usable, err := sb.Usable(t.Context())
		require.NoError(t, err)
		assert.False(t, usable)
		err = sb.Require(t.Context(), lang.TierTest)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the test tier runs workspace code and needs the sandbox")
		assert.Contains(t, err.Error(), "user namespaces are refused")
		require.NoError(t, sb.Require(t.Context(), lang.TierBuild))

		r, err := sb.Verify(t.Context(), lang.TierBuild, gofmt, RunOptions{Workspace: ws})
		require.NoError(t, err)
		assert.False(t, r.Sandboxed, "a build command runs on the host when the sandbox is unusable")
		assert.Equal(t, 0, r.ExitCode, r.Output)

		_, err = sb.Verify(t.Context(), lang.TierTest, goTest, RunOptions{Workspace: ws})
		var refused *RefusedError
		require.ErrorAs(t, err, &refused)
		assert.Contains(t, refused.Reason, "sandbox is not usable")

		_, err = sb.Run(t.Context(), []string{"true"}, RunOptions{Workspace: ws})
		assert.ErrorContains(t, err, "user namespaces are refused")
	})

	t.Run("bwrap mode is fatal", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: path})
		_, err := sb.Usable(t.Context())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "CORE_SESSION_SANDBOX=bwrap")
		assert.Contains(t, err.Error(), "user namespaces are refused")
		assert.Error(t, sb.Require(t.Context(), lang.TierBuild))
		_, err = sb.Verify(t.Context(), lang.TierBuild, gofmt, RunOptions{Workspace: ws})
		require.Error(t, err)
		var refused *RefusedError
		assert.False(t, errors.As(err, &refused), "a fatal sandbox is not the model's to fix")
	})

	t.Run("off refuses the test tier without probing", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Mode: ModeOff, Path: path})
		err := sb.Require(t.Context(), lang.TierTest)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "CORE_SESSION_SANDBOX=off")
		r, err := sb.Verify(t.Context(), lang.TierBuild, gofmt, RunOptions{Workspace: ws})
		require.NoError(t, err)
		assert.False(t, r.Sandboxed)
	})

	t.Run("missing bwrap", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Path: t.TempDir()})
		p := sb.Probe(t.Context())
		assert.False(t, p.Usable)
		assert.Empty(t, p.Bwrap)
		assert.Contains(t, p.Cause, "bwrap is not installed")
		assert.Contains(t, p.Cause, "apt-get install bubblewrap")
	})
}

func TestDiagnose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, words, want string
	}{
		{name: "debian sysctl", words: userNSRefused, want: "user namespaces are refused"},
		{name: "docker seccomp", words: "bwrap: Creating new namespace failed: Operation not permitted", want: "seccomp"},
		{name: "uid map", words: "bwrap: setting up uid map: Permission denied", want: "AppArmor"},
		{name: "proc", words: "bwrap: Can't mount proc on /newroot/proc: Operation not permitted", want: "/proc was refused"},
		{name: "loopback", words: "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted", want: "loopback"},
		{name: "unknown", words: "bwrap: something new", want: "its words follow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Contains(t, diagnose(tt.words), tt.want)
		})
	}
}

func TestProbeCachesItsAnswer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	script := "#!/bin/sh\necho x >> " + count + "\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755))
	sb := New(Config{Home: t.TempDir(), Path: dir + ":" + os.Getenv("PATH")})
	for range 3 {
		assert.False(t, sb.Probe(t.Context()).Usable)
		_, _ = sb.Usable(t.Context())
	}
	b, err := os.ReadFile(count)
	require.NoError(t, err)
	assert.Equal(t, "x\nx\n", string(b), "one --version and one probe run, once per Sandbox")
}

func TestProbeReal(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := New(Config{Home: t.TempDir(), Path: os.Getenv("PATH")})
	p := sb.ProbeIn(t.Context(), t.TempDir())
	require.True(t, p.Usable, "cause: %s; output: %s", p.Cause, p.Output)
	assert.Contains(t, p.Version, "bubblewrap")
	assert.NoError(t, p.Err())
}

func TestInterfaces(t *testing.T) {
	t.Parallel()
	procNetDev := `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
  eth0: 1234 5 0 0 0 0 0 0 99 1 0 0 0 0 0 0
bash: connect: Network is unreachable`
	assert.Equal(t, []string{"lo", "eth0"}, interfaces(procNetDev))
}

func TestProbeSaysWhichLimitsHoldWithoutCgroups(t *testing.T) {
	t.Parallel()
	sb := New(Config{Home: t.TempDir(), Path: os.Getenv("PATH")})
	sb.cgOnce.Do(func() {}) // no cgroup core may write
	lines := sb.enforcedLimits()
	require.NotEmpty(t, lines)
	if os.Geteuid() == 0 {
		// Root is exempt from RLIMIT_NPROC: nothing holds the processes.
		assert.Contains(t, lines[0], "NOT enforced")
		assert.Contains(t, lines[0], "root is exempt from RLIMIT_NPROC")
	} else {
		assert.Contains(t, lines[0], "RLIMIT_NPROC")
		assert.NotContains(t, lines[0], "NOT enforced")
	}
	assert.Contains(t, lines[1], "NOT enforced: no memory cgroup")
}
