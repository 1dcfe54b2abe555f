package limit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimitNoteSaysWhichAndHow(t *testing.T) {
	t.Parallel()
	l := DefaultLimits()
	assert.Equal(t, "\n[stopped: the sandbox's limit on memory (2G) was hit; if the command really needs more, raise it with CORE_SANDBOX_MEMORY (for example CORE_SANDBOX_MEMORY=4G)]\n", LimitNote(LimitMemory, l))
	assert.Contains(t, LimitNote(LimitProcesses, l), "CORE_SANDBOX_PIDS=2048")
	assert.Contains(t, LimitNote(LimitCPUTime, l), "CORE_SANDBOX_CPU=1h0m0s")
}

// A core killed in the middle of a command leaves its cgroups behind; the
// next one removes them.
func TestStaleCgroupsAreSwept(t *testing.T) {
	requireCgroup(t, LimitProcesses)
	dir, _ := cgroupDir("pids")
	t.Parallel()
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	stale := filepath.Join(dir, fmt.Sprintf("core-sandbox-%d-deadbeef", dead.Process.Pid))
	require.NoError(t, os.Mkdir(stale, 0o755))
	live := filepath.Join(dir, fmt.Sprintf("core-sandbox-%d-cafe", os.Getpid()))
	require.NoError(t, os.Mkdir(live, 0o755))
	defer os.Remove(live)
	cg := NewCgroup(DefaultLimits(), FindCgroupParents(), false)
	cg.Remove()
	assert.NoDirExists(t, stale)
	assert.DirExists(t, live, "a cgroup of a running core stays")
}

// A process is held once it is in every cgroup of the command, and a child
// it forks afterwards is born inside.
func TestCgroupHolds(t *testing.T) {
	requireCgroup(t, LimitProcesses)
	cg := NewCgroup(DefaultLimits(), FindCgroupParents(), false)
	defer cg.Remove()
	t.Parallel()
	sh := exec.Command("sh", "-c", "read _; sleep 30 & echo $!; wait")
	in, err := sh.StdinPipe()
	require.NoError(t, err)
	out, err := sh.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, sh.Start())
	defer func() { _ = sh.Process.Kill(); _ = sh.Wait() }()
	assert.False(t, cg.Holds(sh.Process.Pid))
	require.NoError(t, cg.Add(sh.Process.Pid))
	assert.True(t, cg.Holds(sh.Process.Pid))
	_, err = in.Write([]byte("go\n"))
	require.NoError(t, err)
	var child int
	_, err = fmt.Fscan(out, &child)
	require.NoError(t, err)
	defer func() { _ = syscall.Kill(child, syscall.SIGKILL) }()
	assert.True(t, cg.Holds(child), "the child was born in the cgroups")
}

// requireCgroup skips a test of a limit that needs a cgroup core may not
// make here, unless CORE_REQUIRE_CGROUP=1, which makes it a failure.
func requireCgroup(t *testing.T, limit string) {
	t.Helper()
	cg := NewCgroup(DefaultLimits(), FindCgroupParents(), false)
	defer cg.Remove()
	if contains(cg.Enforced(), limit) {
		return
	}
	why := fmt.Sprintf("no cgroup for the %s limit that core may write here, so the limit is not enforced", limit)
	if os.Getenv("CORE_REQUIRE_CGROUP") == "1" {
		t.Fatalf("CORE_REQUIRE_CGROUP=1 but %s", why)
	}
	t.Skipf("%s (run as root on a host with writable cgroups; set CORE_REQUIRE_CGROUP=1 to make this a failure)", why)
}
