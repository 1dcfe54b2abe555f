package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/lang"
)

func TestConfinedCommandsSeeOnlyTheModulesTheWorkspaceNames(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy := fileProxy(t)
	ws := goModule(t, proxy)
	mods := t.TempDir()
	sb := New(warmBuilds(t, Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), ModCache: mods,
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}}))
	r, err := sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "-count=1", "./..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	greet := filepath.Join(mods, "example.com", "greet@v1.0.0", "greet.go")
	require.FileExists(t, greet, "the download filled the whole cache")

	// Another project's module, in the same cache.
	secret := filepath.Join(mods, "example.com", "secret@v1.0.0", "secret.go")
	require.NoError(t, os.MkdirAll(filepath.Dir(secret), 0o755))
	require.NoError(t, os.WriteFile(secret, []byte("package secret // private-module-secret\n"), 0o444))
	secretMod := filepath.Join(mods, "cache", "download", "example.com", "secret", "@v", "v1.0.0.mod")
	require.NoError(t, os.MkdirAll(filepath.Dir(secretMod), 0o755))
	require.NoError(t, os.WriteFile(secretMod, []byte("module example.com/secret\n"), 0o444))

	tests := []struct {
		name, script, want string
		code               int
	}{
		{name: "a required module reads", script: "cat " + greet, want: "func Hello", code: 0},
		{name: "another module does not", script: "cat " + secret, want: "No such file", code: 1},
		{name: "nor its go.mod", script: "cat " + secretMod, want: "No such file", code: 1},
		{name: "the download cache lists only what is named", script: "ls " + filepath.Join(mods, "cache", "download", "example.com"), want: "greet\n", code: 0},
		{name: "the view is read-only", script: "echo x >> " + greet, want: "Read-only file system|Permission denied", code: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runIn(t, sb, ws, tt.script)
			assert.Equal(t, tt.code, r.ExitCode, r.Output)
			assert.Regexp(t, tt.want, r.Output)
			assert.NotContains(t, r.Output, "private-module-secret")
			assert.NotContains(t, r.Output, "secret\n")
		})
	}
	b, err := os.ReadFile(greet)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "x\n")

	// A workspace that names no module sees none.
	r = runIn(t, sb, newWorkspace(t), "find "+mods+" -type f | wc -l")
	assert.Equal(t, "0\n", r.Output)
}

func TestModuleViewHoldsWhatTheCacheHasOfTheNamedModules(t *testing.T) {
	t.Parallel()
	cache, home := t.TempDir(), t.TempDir()
	put := func(mod string) {
		t.Helper()
		files := map[string]string{
			"cache/download/example.com/" + mod + "/@v/v1.0.0.mod": "module example.com/" + mod + "\n",
			"cache/download/example.com/" + mod + "/@v/v1.0.0.zip": "zip",
			"example.com/" + mod + "@v1.0.0/" + mod + ".go":        "package " + mod + "\n",
		}
		for name, body := range files {
			p := filepath.Join(cache, name)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(body), 0o444))
		}
	}
	put("a")
	put("other")
	ws := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/app\n\ngo 1.21\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.sum"), []byte(
		"example.com/a v1.0.0 h1:a=\nexample.com/a v1.0.0/go.mod h1:b=\nexample.com/b v1.0.0 h1:c=\n"), 0o644))
	sb := New(Config{Home: home, ModCache: cache})

	view, err := sb.moduleView(ws, cache)
	require.NoError(t, err)
	src, err := os.Stat(filepath.Join(cache, "example.com", "a@v1.0.0", "a.go"))
	require.NoError(t, err)
	got, err := os.Stat(filepath.Join(view, "example.com", "a@v1.0.0", "a.go"))
	require.NoError(t, err)
	assert.True(t, os.SameFile(src, got), "a link, not a copy")
	assert.FileExists(t, filepath.Join(view, "cache", "download", "example.com", "a", "@v", "v1.0.0.zip"))
	assert.NoDirExists(t, filepath.Join(view, "example.com", "other@v1.0.0"), "a module the workspace does not name")
	assert.NoDirExists(t, filepath.Join(view, "cache", "download", "example.com", "other"))
	again, err := sb.moduleView(ws, cache)
	require.NoError(t, err)
	assert.Equal(t, view, again, "the same modules, the same view")

	// b is downloaded later: another view, which holds it.
	put("b")
	later, err := sb.moduleView(ws, cache)
	require.NoError(t, err)
	assert.NotEqual(t, view, later)
	assert.FileExists(t, filepath.Join(later, "example.com", "b@v1.0.0", "b.go"))

	// Module files that do not read give an empty view.
	require.NoError(t, os.Remove(filepath.Join(ws, "go.sum")))
	require.NoError(t, os.Symlink(filepath.Join(cache, "example.com", "a@v1.0.0", "a.go"), filepath.Join(ws, "go.sum")))
	empty, err := sb.moduleView(ws, cache)
	require.NoError(t, err)
	entries, err := os.ReadDir(empty)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
