package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
)

// The download profile sees no workspace, no home, nothing of $CORE_HOME
// but the module cache, and an environment of the proxy settings only.
func TestDownloadProfile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	sb := New(Config{Home: home, Path: os.Getenv("PATH"), HostHome: "/home/u",
		HostEnv: []string{"GOPROXY=https://proxy.example", "GOPRIVATE=example.com/*"}})
	p, err := sb.profileFor("go")
	require.NoError(t, err)
	p.scratch = "/scratch/core-mod-1"
	p.buildCache = ""
	sb.networked(&p)
	args := p.args([]string{"go", "mod", "download"})
	joined := strings.Join(args, " ")
	modCache := filepath.Join(home, "cache", "gomod")
	assert.Contains(t, joined, "--unshare-all ")
	assert.Contains(t, joined, " --share-net ")
	assert.Contains(t, joined, "--die-with-parent")
	assert.Contains(t, joined, "--cap-drop ALL")
	assert.Contains(t, joined, "--new-session")
	assert.Contains(t, joined, "--seccomp 3")
	assert.Contains(t, joined, "--bind "+modCache+" "+modCache)
	assert.Contains(t, joined, "--bind /scratch/core-mod-1 "+deps.ScratchDir)
	assert.Contains(t, joined, "--chdir "+deps.ScratchDir+" --")
	assert.NotContains(t, joined, "go-build")
	assert.NotContains(t, joined, "/home/u")
	var env []string
	for i, a := range args {
		if a == "--setenv" {
			env = append(env, args[i+1]+"="+args[i+2])
		}
	}
	slices.Sort(env)
	want := []string{
		"GOENV=off", "GOFLAGS=-modcacherw", "GOMODCACHE=" + modCache, "GOPRIVATE=example.com/*",
		"GOPROXY=https://proxy.example", "GOTELEMETRY=off", "GOTOOLCHAIN=local", "HOME=/tmp", "LANG=C.UTF-8",
	}
	require.Len(t, env, len(want)+1)
	assert.True(t, strings.HasPrefix(env[len(env)-1], "PATH="), env)
	assert.Equal(t, want, env[:len(env)-1])
}

// A go.work workspace: the download copies go.work and the go.mod of each
// module it uses, and go test then works offline inside.
func TestGoWorkDownload(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy := fileProxy(t)
	mod := goModule(t, proxy)
	ws := newWorkspace(t)
	require.NoError(t, os.Rename(mod, filepath.Join(ws, "app")))
	require.NoError(t, os.RemoveAll(filepath.Join(ws, "app", ".git")))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.work"), []byte("go 1.21\n\nuse ./app\n"), 0o644))
	files, err := deps.GoModuleFiles(ws)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"go.work", "app/go.mod", "app/go.sum"}, keys(files))

	sb := New(warmBuilds(t, Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"),
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}}))
	r, err := sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "-count=1", "./app/..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, r.Output, "ok  \texample.com/app")
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A real multi-package module with cgo and a test of network code
// (httptest on loopback) passes confined under the default limits and the
// seccomp filter.
func TestGoTestWithCgoUnderDefaultLimits(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatalf("gcc is needed for the cgo test (apt-get install gcc libc6-dev): %v", err)
	}
	t.Parallel()
	ws := newWorkspace(t)
	files := map[string]string{
		"go.mod":              "module example.com/big\n\ngo 1.21\n",
		"cmath/cmath.go":      "package cmath\n\n// int twice(int x) { return 2 * x; }\nimport \"C\"\n\n// Twice doubles x in C.\nfunc Twice(x int) int { return int(C.twice(C.int(x))) }\n",
		"cmath/cmath_test.go": "package cmath\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice(21) != 42 {\n\t\tt.Fatal(Twice(21))\n\t}\n}\n",
		"web/web.go":          "// Package web serves a greeting.\npackage web\n\nimport \"net/http\"\n\n// Handler greets.\nfunc Handler(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(\"hi\")) }\n",
		"web/web_test.go":     "package web\n\nimport (\n\t\"io\"\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"testing\"\n)\n\nfunc TestHandler(t *testing.T) {\n\tsrv := httptest.NewServer(http.HandlerFunc(Handler))\n\tdefer srv.Close()\n\tres, err := http.Get(srv.URL)\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tb, _ := io.ReadAll(res.Body)\n\tif string(b) != \"hi\" {\n\t\tt.Fatal(string(b))\n\t}\n}\n",
		"par/par_test.go":     "package par\n\nimport (\n\t\"sync\"\n\t\"testing\"\n)\n\nfunc TestMany(t *testing.T) {\n\tvar wg sync.WaitGroup\n\tfor i := 0; i < 200; i++ {\n\t\twg.Add(1)\n\t\tgo func() { defer wg.Done(); _ = make([]byte, 1<<20) }()\n\t}\n\twg.Wait()\n}\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	sb := New(warmBuilds(t, Config{Home: sharedHome, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}}))
	r, err := sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "-count=1", "./..."}, RunOptions{Workspace: ws, Timeout: 10 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Empty(t, r.Limit)
	for _, pkg := range []string{"cmath", "web", "par"} {
		assert.Contains(t, r.Output, "ok  \texample.com/big/"+pkg)
	}
}

// hangingProxy is a module proxy that accepts requests and never answers;
// asked is signalled on the first request.
func hangingProxy(t *testing.T) (url string, asked <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(ch) })
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL, ch
}

func TestDownloadHasItsOwnTimeoutAndCancels(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	gomod := "module example.com/app\n\ngo 1.21\n\nrequire example.com/greet v1.0.0\n"

	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		proxy, _ := hangingProxy(t)
		ws := newWorkspace(t)
		require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte(gomod), 0o644))
		sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), DownloadTimeout: 2 * time.Second,
			HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
		r, err := sb.Run(t.Context(), []string{"go", "vet", "./..."}, RunOptions{Workspace: ws})
		require.NoError(t, err)
		assert.True(t, r.TimedOut, r.Output)
		assert.Contains(t, r.Output, "go mod download (run by core confined, with the network")
		assert.Contains(t, r.Output, "ran past its 2s timeout")
	})

	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		proxy, asked := hangingProxy(t)
		ws := newWorkspace(t)
		require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte(gomod), 0o644))
		sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"),
			HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
		ctx, cancel := context.WithCancel(t.Context())
		go func() { <-asked; cancel() }()
		_, err := sb.Run(ctx, []string{"go", "vet", "./..."}, RunOptions{Workspace: ws})
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestDownloadSkippedWhenTheCacheHoldsEverything(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy := fileProxy(t)
	ws := goModule(t, proxy)
	mods := t.TempDir()
	sb := New(warmBuilds(t, Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), ModCache: mods,
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}}))
	var progress ghfake.LockedBuffer
	r, err := sb.Run(t.Context(), []string{"go", "vet", "./..."}, RunOptions{Workspace: ws, Progress: &progress})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, progress.String(), "Downloading 1 Go module for the command (go mod download) …\n", "the download says what it fetches")
	assert.Regexp(t, `Downloaded 1 Go module in [0-9.]+m?s\.\n`, progress.String())

	// A new process, the same module cache, a proxy that never answers:
	// nothing asks it.
	hanging, asked := hangingProxy(t)
	sb = New(warmBuilds(t, Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), ModCache: mods, DownloadTimeout: time.Minute,
		HostEnv: []string{"GOPROXY=" + hanging, "GOSUMDB=off"}}))
	var again ghfake.LockedBuffer
	r, err = sb.Run(t.Context(), []string{"go", "vet", "./..."}, RunOptions{Workspace: ws, Progress: &again})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.NotContains(t, again.String(), "Downloading", "nothing to download: nothing said")
	select {
	case <-asked:
		t.Fatal("the download ran, though the module cache held everything")
	default:
	}
}
