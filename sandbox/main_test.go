package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/egress"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/stretchr/testify/require"
)

// sharedHome is a $CORE_HOME shared by the tests of this package so that the
// Go build cache stays warm between them. Set once in TestMain.
var sharedHome string

func TestMain(m *testing.M) {
	gocache.ServeIfAsked(os.Args)  // started inside the sandbox as GOCACHEPROG, as core is
	boxagent.AgentIfAsked(os.Args) // started inside a box as its agent, as core is
	egress.IfAsked(os.Args)        // started inside a dependency step as its forwarder, as core is
	if os.Getenv("CORE_SANDBOX_HELPER") == "parent" {
		helperParent()
		return
	}
	dir, err := os.MkdirTemp("", "core-sandbox-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedHome = dir
	// Root-only files under a system root, made before anything scans the
	// roots (once per process), for TestEscapeRootOnlyFiles.
	cleanup := plantRootOnly()
	code := m.Run()
	cleanup()
	os.RemoveAll(dir)
	os.Exit(code)
}

// rootOnlyFile and rootOnlyDir are made by plantRootOnly when the tests run
// as root: a 0600 key and a 0700 directory holding a world-readable file.
var rootOnlyFile, rootOnlyDir string

const rootOnlySecret = "root-only-secret-7f3a"

func plantRootOnly() func() {
	if os.Geteuid() != 0 {
		return func() {}
	}
	// What a killed test process left behind.
	stale, _ := filepath.Glob("/etc/core-sandbox-test-*")
	for _, p := range stale {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(p), "core-sandbox-test-%d", &pid); err == nil && syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(p)
		}
	}
	base := fmt.Sprintf("/etc/core-sandbox-test-%d", os.Getpid())
	file, dir := base+".key", base+".d"
	if os.WriteFile(file, []byte(rootOnlySecret), 0o600) != nil {
		return func() {}
	}
	if os.Mkdir(dir, 0o700) != nil || os.WriteFile(filepath.Join(dir, "readable"), []byte(rootOnlySecret), 0o644) != nil {
		os.Remove(file)
		os.RemoveAll(dir)
		return func() {}
	}
	rootOnlyFile, rootOnlyDir = file, dir
	return func() {
		os.Remove(file)
		os.RemoveAll(dir)
	}
}

// helperParent is the process the parent-death test kills: it runs a
// long sleep in the sandbox and waits.
func helperParent() {
	cfg := Config{Home: os.Getenv("CORE_SANDBOX_HELPER_HOME"), Path: os.Getenv("PATH")}
	if os.Getenv("CORE_SANDBOX_HELPER_BOX") == "1" {
		cfg.Agent = os.Args[0] // the sleep runs in a box
	}
	sb := New(cfg)
	_, err := sb.Run(context.Background(), []string{"sleep", os.Getenv("CORE_SANDBOX_HELPER_SLEEP")},
		RunOptions{Workspace: os.Getenv("CORE_SANDBOX_HELPER_WORKSPACE")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// requireBwrap skips a test that needs a working bwrap when there is none,
// unless CORE_REQUIRE_BWRAP=1 (as in CI), which makes it a failure.
func requireBwrap(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("bwrap")
	if err == nil {
		p := New(Config{Home: t.TempDir(), Path: os.Getenv("PATH")}).Probe(t.Context())
		if p.Usable {
			return
		}
		err = p.Err()
	}
	if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
		t.Fatalf("CORE_REQUIRE_BWRAP=1 but the sandbox is not usable: %v", err)
	}
	t.Skipf("sandbox not usable here (set CORE_REQUIRE_BWRAP=1 to make this a failure): %v", err)
}

// requireCgroup skips a test that needs the cgroup of a limit (limit.LimitProcesses,
// limit.LimitMemory) when the host gives core none it may write, saying so,
// unless CORE_REQUIRE_CGROUP=1 (as in CI, which runs as root on a machine
// with writable cgroups), which makes it a failure.
func requireCgroup(t *testing.T, name string) {
	t.Helper()
	cg := limit.NewCgroup(limit.DefaultLimits(), limit.FindCgroupParents(), false)
	defer cg.Remove()
	if slices.Contains(cg.Enforced(), name) {
		return
	}
	why := fmt.Sprintf("no cgroup for the %s limit that core may write here (%s), so the limit is not enforced", name, cgroupWhere())
	if os.Getenv("CORE_REQUIRE_CGROUP") == "1" {
		t.Fatalf("CORE_REQUIRE_CGROUP=1 but %s", why)
	}
	t.Skipf("%s (run as root on a host with writable cgroups; set CORE_REQUIRE_CGROUP=1 to make this a failure)", why)
}

// cgroupWhere says what the process's cgroups are, for a skip or a failure.
func cgroupWhere() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return err.Error()
	}
	return "/proc/self/cgroup: " + strings.Join(strings.Fields(string(b)), " ")
}

// newTestSandbox returns a sandbox on the real PATH with the shared home.
func newTestSandbox(t *testing.T, mode Mode) *Sandbox {
	t.Helper()
	sb := New(Config{Home: sharedHome, Mode: mode, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0]})
	t.Cleanup(func() { sb.Close() })
	return sb
}

// newWorkspace makes a workspace with a real git repository in it.
func newWorkspace(t testing.TB) string {
	t.Helper()
	ws := t.TempDir()
	out, err := exec.Command("git", "init", "-q", ws).CombinedOutput()
	require.NoError(t, err, string(out))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "README"), []byte("hello\n"), 0o644))
	return ws
}

// warmBuilds gives c what production has (ConfigFromEnv): confined builds
// read the user's build cache, read-only, through core's executable (here
// the test binary). A test that is not about the build cache takes it so
// that its go test does not compile the standard library from nothing: on
// a busy two-core machine that alone ran past five minutes. The module
// cache stays the test's own (Home's, unless c names one): the user's is
// never written by a test's downloads.
func warmBuilds(t *testing.T, c Config) Config {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	c.UserCaches, c.CacheProg, c.HostHome = true, self, home
	if c.ModCache == "" {
		c.ModCache = filepath.Join(c.Home, "cache", "gomod")
	}
	return c
}
