package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/mask"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack: confined code reads what only root may read on the host. Core
// runs as root here, and a user namespace made by root is host root to the
// kernel, so only the masks stand between the code and the files.
func TestEscapeRootOnlyFiles(t *testing.T) {
	requireBwrap(t)
	testkit.RequireRoot(t, "the kernel itself keeps root's files from the confined code of a core that is not root")
	require.NotEmpty(t, rootOnlyFile, "TestMain could not plant a root-only file under /etc")
	t.Parallel()
	t.Run("walked", func(t *testing.T) {
		t.Parallel()
		assertRootOnlyHidden(t, newTestSandbox(t, ModeBwrap))
	})
	// The masks a new process takes from the scan cache on disk hide as
	// much as a walk.
	t.Run("from the cache on disk", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		fresh := func() *Sandbox {
			sb := New(Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH")})
			sb.scans = mask.NewCache() // as in a new process
			return sb
		}
		first := fresh()
		runIn(t, first, newWorkspace(t), "true")
		require.Equal(t, 1, first.scans.Walks())
		second := fresh()
		assertRootOnlyHidden(t, second)
		assert.Equal(t, 0, second.scans.Walks(), "the second sandbox read the walk from the cache")
	})
}

func assertRootOnlyHidden(t *testing.T, sb *Sandbox) {
	t.Helper()
	b, err := os.ReadFile(rootOnlyFile)
	require.NoError(t, err)
	require.Equal(t, rootOnlySecret, string(b), "the host itself reads the file")
	script := "cat " + rootOnlyFile + " " + rootOnlyDir + "/readable /etc/shadow /etc/gshadow; ls -a " + rootOnlyDir
	if fi, err := os.Stat("/etc/ssl/private"); err == nil && fi.IsDir() {
		script += "; cat /etc/ssl/private/*"
	}
	r := runIn(t, sb, newWorkspace(t), script+"; echo END")
	assert.Contains(t, r.Output, "END")
	assert.NotContains(t, r.Output, rootOnlySecret)
	assert.NotContains(t, r.Output, "\nreadable\n", "the root-only directory is listed")
	assert.NotContains(t, r.Output, hostSecret)
	assert.NotContains(t, r.Output, "PRIVATE KEY")
}

// limited returns a sandbox whose limits are lowered to what a test can hit
// quickly.
func limited(t *testing.T, l limit.Limits) *Sandbox {
	t.Helper()
	sb := New(Config{Home: sharedHome, Mode: ModeBwrap, Path: os.Getenv("PATH"), Limits: l, Agent: os.Args[0]})
	t.Cleanup(func() { sb.Close() })
	return sb
}

// limitAttack is an attack that a limit stops: the result says which
// limit and how to raise it.
type limitAttack struct {
	name   string
	limits limit.Limits
	script string
	cgroup bool // stopped by a cgroup core makes (bwrap)
	// bwrapOnly is an attack on a limit the Docker backend does not set.
	bwrapOnly bool
	want      string
	check     func(t *testing.T, ws string, r Result)
}

func limitAttacks() []limitAttack {
	return []limitAttack{
		{
			name:   "fork bomb",
			limits: limit.Limits{Processes: 64},
			script: "for i in $(seq 300); do sleep 60 & done; echo forked",
			cgroup: true,
			want:   limit.LimitProcesses,
			check: func(t *testing.T, _ string, r Result) {
				assert.Contains(t, r.Output, "CORE_SANDBOX_PIDS=128")
			},
		},
		{
			name:   "memory hog",
			limits: limit.Limits{Memory: 64 << 20},
			script: "head -c 1G /dev/zero | tail > /dev/null && echo survived",
			cgroup: true,
			want:   limit.LimitMemory,
			check: func(t *testing.T, _ string, r Result) {
				assert.NotContains(t, r.Output, "survived")
				assert.Contains(t, r.Output, "CORE_SANDBOX_MEMORY=128M")
			},
		},
		{
			name:      "/tmp filler",
			limits:    limit.Limits{Tmp: 8 << 20},
			bwrapOnly: true, // the Docker backend's /tmp is its own size
			script:    "head -c 64M /dev/zero > /tmp/fill; ls -l /tmp/fill",
			want:      limit.LimitTmp,
			check: func(t *testing.T, _ string, r Result) {
				assert.Contains(t, r.Output, "No space left on device")
				assert.Contains(t, r.Output, "CORE_SANDBOX_TMP=16M")
			},
		},
		{
			name:   "workspace filler",
			limits: limit.Limits{WorkspaceGrowth: 8 << 20},
			script: "i=0; while :; do i=$((i+1)); head -c 1M /dev/zero > fill$i; done",
			want:   limit.LimitWorkspace,
			check: func(t *testing.T, ws string, r Result) {
				assert.False(t, r.TimedOut, "the watch, not the timeout, stopped it")
				assert.Contains(t, r.Output, "CORE_SANDBOX_WORKSPACE_GROWTH=16M")
			},
		},
		{
			name:   "CPU spinner",
			limits: limit.Limits{CPUTime: time.Second},
			script: "while :; do :; done",
			want:   limit.LimitCPUTime,
			check: func(t *testing.T, _ string, r Result) {
				assert.False(t, r.TimedOut, "RLIMIT_CPU, not the timeout, stopped it")
				assert.Contains(t, r.Output, "CORE_SANDBOX_CPU=2s")
			},
		},
		{
			name:   "huge file",
			limits: limit.Limits{FileSize: 1 << 20},
			script: "head -c 64M /dev/zero > big",
			want:   limit.LimitFileSize,
			check: func(t *testing.T, ws string, r Result) {
				fi, err := os.Stat(filepath.Join(ws, "big"))
				require.NoError(t, err)
				assert.LessOrEqual(t, fi.Size(), int64(1<<20))
				assert.Contains(t, r.Output, "CORE_SANDBOX_FILE_SIZE=2M")
			},
		},
	}
}

// attack runs tt in sb, a sandbox of tt.limits, and checks
// that its limit stopped it, in the workspace's box, which outlives it.
func (tt limitAttack) attack(t *testing.T, sb *Sandbox) {
	t.Helper()
	ws := newWorkspace(t)
	r, err := sb.Run(t.Context(), []string{"bash", "-c", tt.script}, RunOptions{Workspace: ws, Timeout: 2 * time.Minute})
	require.NoError(t, err)
	assert.Equal(t, tt.want, r.Limit, r.Output)
	assert.NotEqual(t, 0, r.ExitCode)
	assert.Contains(t, r.Output, "[stopped: the sandbox's limit on")
	tt.check(t, ws, r)
	requireBoxed(t, sb, ws)
	// The box outlives the attack: the next command runs in it.
	after, err := sb.Run(t.Context(), []string{"echo", "after"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, "after\n", after.Output)
	assert.Empty(t, after.Limit, "a limit the attack hit is not the next command's")
}

// Attacks: each of them is stopped by its limit, and the result says which
// limit and how to raise it.
func TestEscapeLimits(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	for _, tt := range limitAttacks() {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cgroup {
				requireCgroup(t, tt.want)
			}
			t.Parallel()
			tt.attack(t, limited(t, tt.limits))
		})
	}
}

// Attack: each system call the seccomp filter denies, tried by a Go program
// inside. Without the filter (the control run) the calls that the kernel
// would otherwise allow, or answer differently, show that the arguments
// reach it; under the filter every one of them gets EPERM.
func TestEscapeSyscalls(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	ws := newWorkspace(t)
	build := exec.Command("go", "build", "-o", filepath.Join(ws, "syscalls"), "./testdata/syscalls")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	sb := newTestSandbox(t, ModeBwrap)

	r, err := sb.Run(t.Context(), []string{"./syscalls"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	got := errnos(t, r.Output)
	allowed := map[string]bool{"socket-unix": true, "socket-inet": true, "socket-inet6": true}
	for name, e := range got {
		switch {
		case allowed[name]:
			assert.Equal(t, 0, e, "%s is allowed inside", name)
		case name == "clone3":
			assert.Equal(t, int(syscall.ENOSYS), e, "clone3 must fail with ENOSYS, so that the C library falls back to clone")
		default:
			assert.Equal(t, int(syscall.EPERM), e, "%s got errno %d, not EPERM: the filter let it through", name, e)
		}
	}
	assert.Len(t, got, 32)

	// The control: the same program without the filter.
	p, err := sb.profileFor("./syscalls")
	require.NoError(t, err)
	p.workspace, p.seccomp = ws, false
	r, err = sb.launch(t.Context(), sb.Probe(t.Context()).Bwrap, p, []string{"./syscalls"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	unfiltered := errnos(t, r.Output)
	for _, name := range []string{"unshare-user", "clone-newuser", "keyctl", "add_key", "process_vm_readv", "socket-netlink", "clone3"} {
		assert.NotEqual(t, got[name], unfiltered[name], "%s: the control run got the same answer, so the test proves nothing", name)
	}
}

func errnos(t *testing.T, out string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, v, ok := strings.Cut(line, " ")
		require.True(t, ok, line)
		n, err := strconv.Atoi(v)
		require.NoError(t, err, line)
		got[name] = n
	}
	return got
}
