package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/lang"
)

// fileProxy writes a GOPROXY directory serving example.com/greet v1.0.0 and
// returns its file:// URL.
func fileProxy(t testing.TB) string { return testkit.GoProxy(t) }

// goModule writes a module that depends on example.com/greet, with its
// go.sum made by go mod tidy against the file proxy.
func goModule(t testing.TB, proxy string) string {
	t.Helper()
	ws := newWorkspace(t)
	files := map[string]string{
		"go.mod":        "module example.com/app\n\ngo 1.21\n\nrequire example.com/greet v1.0.0\n",
		"app.go":        "package app\n\nimport \"example.com/greet\"\n\n// Greeting greets the world.\nfunc Greeting() string { return greet.Hello(\"world\") }\n",
		"app_test.go":   "package app\n\nimport \"testing\"\n\nfunc TestGreeting(t *testing.T) {\n\tif got := Greeting(); got != \"hello, world\" {\n\t\tt.Fatalf(\"got %q\", got)\n\t}\n}\n",
		"net_test.go":   "package app\n\nimport (\n\t\"net/http\"\n\t\"testing\"\n)\n\nfunc TestNoNetwork(t *testing.T) {\n\tif _, err := http.Get(\"http://127.0.0.1:1/\"); err == nil {\n\t\tt.Fatal(\"network reachable\")\n\t}\n}\n",
		"README":        "app\n",
		"sub/doc.go":    "// Package sub is empty.\npackage sub\n",
		"sub/sub.go":    "package sub\n",
		"sub/sub_x.txt": "x\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = ws
	tidy.Env = append(os.Environ(), "GOPROXY="+proxy, "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE="+t.TempDir(), "GOTOOLCHAIN=local")
	out, err := tidy.CombinedOutput()
	require.NoError(t, err, string(out))
	return ws
}

func TestGoTestInSandboxWithADependency(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy := fileProxy(t)
	ws := goModule(t, proxy)
	sumBefore, err := os.ReadFile(filepath.Join(ws, "go.sum"))
	require.NoError(t, err)
	sb := New(warmBuilds(t, Config{Home: sharedHome, Mode: ModeBwrap, Path: os.Getenv("PATH"),
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}}))

	r, err := sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "-count=1", "./..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	assert.True(t, r.Sandboxed)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, r.Output, "ok  \texample.com/app")

	r, err = sb.Verify(t.Context(), lang.TierBuild, []string{"go", "vet", "./..."}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.True(t, r.Sandboxed, "build-tier commands run confined when the sandbox is usable")
	assert.Equal(t, 0, r.ExitCode, r.Output)

	sumAfter, err := os.ReadFile(filepath.Join(ws, "go.sum"))
	require.NoError(t, err)
	assert.Equal(t, string(sumBefore), string(sumAfter), "the module download changed go.sum")

	// A failing test fails, with its output.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "fail_test.go"),
		[]byte("package app\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) { t.Fatal(\"boom\") }\n"), 0o644))
	r, err = sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "./..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	assert.Equal(t, 1, r.ExitCode)
	assert.Contains(t, r.Output, "boom")
}

func TestGoModRunsConfinedWithTheNetwork(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy := fileProxy(t)
	ws := goModule(t, proxy)
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"),
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
	r, err := sb.Verify(t.Context(), lang.TierBuild, []string{"go", "mod", "download", "-json"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.True(t, r.Sandboxed, "go mod parses workspace files: it runs confined, with the network")
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, r.Output, `"Path": "example.com/greet"`)

	// go mod tidy rewrites go.mod in the workspace from inside.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/app\n\ngo 1.21\n"), 0o644))
	r, err = sb.Verify(t.Context(), lang.TierBuild, []string{"go", "mod", "tidy"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	mod, err := os.ReadFile(filepath.Join(ws, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(mod), "require example.com/greet v1.0.0")
}

func TestGoModOnTheHostWithoutTheSandbox(t *testing.T) {
	t.Parallel()
	proxy := fileProxy(t)
	ws := goModule(t, proxy)
	sb := New(warmBuilds(t, Config{Home: t.TempDir(), Mode: ModeOff, Path: os.Getenv("PATH"),
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}}))
	r, err := sb.Verify(t.Context(), lang.TierBuild, []string{"go", "mod", "download", "-json"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.False(t, r.Sandboxed)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, r.Output, `"Path": "example.com/greet"`)

	r, err = sb.Verify(t.Context(), lang.TierBuild, []string{"go", "vet", "./..."}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.False(t, r.Sandboxed)
	assert.Equal(t, 0, r.ExitCode, r.Output)
}

func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	modes := []struct {
		name string
		mode Mode
	}{{"host", ModeOff}, {"sandbox", ModeBwrap}}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.mode == ModeBwrap {
				requireBwrap(t)
			}
			t.Parallel()
			token := fmt.Sprintf("%d.%06d", 3000+rand.IntN(1000), rand.IntN(1000000))
			sb := New(Config{Home: t.TempDir(), Mode: m.mode, Path: os.Getenv("PATH")})
			ws := newWorkspace(t)
			argv := []string{"sh", "-c", "sleep " + token + " & sleep " + token + "; echo never"}
			opts := RunOptions{Workspace: ws, Timeout: 300 * time.Millisecond}
			var r Result
			var err error
			if m.mode == ModeBwrap {
				r, err = sb.Run(t.Context(), argv, opts)
			} else {
				r, err = sb.RunHost(t.Context(), argv, opts)
			}
			require.NoError(t, err)
			assert.True(t, r.TimedOut)
			assert.Equal(t, -1, r.ExitCode)
			assert.NotContains(t, r.Output, "never")
			assert.Contains(t, r.Output, "ran past its 300ms timeout")
			assert.Eventually(t, func() bool { return len(testkit.Sleepers(token)) == 0 }, testkit.Patience, 20*time.Millisecond,
				"a child of the timed-out command is still running")
		})
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	sb := New(Config{Home: t.TempDir(), Mode: ModeOff, Path: os.Getenv("PATH")})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	r, err := sb.RunHost(ctx, []string{"sleep", "30"}, RunOptions{Workspace: t.TempDir()})
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, r.TimedOut)
}

func TestHugeOutputIsCapped(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	r, err := sb.Run(t.Context(), []string{"sh", "-c", "echo FIRST; head -c 5000000 /dev/urandom; echo; echo LAST"},
		RunOptions{Workspace: newWorkspace(t), OutputLimit: 4096})
	require.NoError(t, err)
	assert.Equal(t, 0, r.ExitCode)
	assert.True(t, strings.HasPrefix(r.Output, "FIRST\n"))
	assert.True(t, strings.HasSuffix(r.Output, "LAST\n"))
	assert.Greater(t, r.Cut, int64(4_900_000))
	assert.Less(t, len(r.Output), 4096*4)
}

func TestCommandNotFound(t *testing.T) {
	t.Parallel()
	sb := New(Config{Home: t.TempDir(), Mode: ModeOff, Path: t.TempDir()})
	r, err := sb.Verify(t.Context(), lang.TierBuild, []string{"go", "vet", "./..."}, RunOptions{Workspace: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, 127, r.ExitCode)
	assert.Contains(t, r.Output, "go: command not found")
}

func TestWorkspaceChecks(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	sb := New(Config{Home: filepath.Join(home, "state"), HostHome: home, Mode: ModeOff, Path: os.Getenv("PATH")})
	tests := []struct {
		name, dir, want string
	}{
		{name: "root", dir: "/", want: "cannot be the root"},
		{name: "contains the home", dir: filepath.Dir(home), want: "which the sandbox must not see"},
		{name: "missing", dir: filepath.Join(home, "nope"), want: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := sb.Verify(t.Context(), lang.TierBuild, []string{"gofmt", "-l", "."}, RunOptions{Workspace: tt.dir})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
