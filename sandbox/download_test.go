package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.Contains(t, joined, "--bind /scratch/core-mod-1 "+scratchDir)
	assert.Contains(t, joined, "--chdir "+scratchDir+" --")
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
	files, err := moduleFiles(ws)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"go.work", "app/go.mod", "app/go.sum"}, keys(files))

	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"),
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
	r, err := sb.Verify(t.Context(), TierTest, []string{"go", "test", "-count=1", "./app/..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
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
