package gocache

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummedModules(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"go.sum": []byte("example.com/greet v1.0.0 h1:x=\n" +
			"example.com/greet v1.0.0/go.mod h1:y=\n" +
			"example.com/only v1.2.0/go.mod h1:z=\n" +
			"github.com/Upper/Case v0.1.0 h1:u=\n" +
			"../evil v1.0.0 h1:e=\n" +
			"/abs v1.0.0 h1:e=\n" +
			"example.com/a/../b v1.0.0 h1:e=\n" +
			"example.com/bad notaversion h1:e=\n" +
			"example.com/short v1.0.0\n"),
		"sub/go.sum":  []byte("example.com/sub v0.0.1 h1:s=\n"),
		"go.work.sum": []byte("example.com/work v1.0.0 h1:w=\n"),
		"go.mod":      []byte("example.com/notasum v1.0.0 h1:n=\n"),
	}
	assert.Equal(t, []summedModule{
		{path: "example.com/greet", version: "v1.0.0", full: true},
		{path: "example.com/only", version: "v1.2.0"},
		{path: "example.com/sub", version: "v0.0.1", full: true},
		{path: "example.com/work", version: "v1.0.0", full: true},
		{path: "github.com/!upper/!case", version: "v0.1.0", full: true},
	}, summedModules(files))
}

func TestViewKey(t *testing.T) {
	t.Parallel()
	a := summedModule{path: "example.com/a", version: "v1.0.0", full: true}
	b := summedModule{path: "example.com/b", version: "v1.0.0", full: true}
	base := viewKey("/cache", []summedModule{a})
	tests := []struct {
		name     string
		modCache string
		mods     []summedModule
		same     bool
	}{
		{name: "the same cache and modules", modCache: "/cache", mods: []summedModule{a}, same: true},
		{name: "another module cache", modCache: "/other", mods: []summedModule{a}},
		{name: "one more module", modCache: "/cache", mods: []summedModule{a, b}},
		{name: "no module", modCache: "/cache"},
		{name: "another version", modCache: "/cache", mods: []summedModule{{path: a.path, version: "v1.0.1", full: true}}},
		{name: "its go.mod alone", modCache: "/cache", mods: []summedModule{{path: a.path, version: a.version}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := viewKey(tt.modCache, tt.mods)
			assert.Len(t, got, 16)
			if tt.same {
				assert.Equal(t, base, got)
			} else {
				assert.NotEqual(t, base, got)
			}
		})
	}
}

// TestModuleView: the view holds what the sum files name of the cache: a
// module's tree and download files, a go.mod the module graph needs even
// when the sum file names the tree too (go mod download fetches the tree
// only of a module a build needs), and nothing the sum files do not name.
func TestModuleView(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	put := func(name, body string) {
		t.Helper()
		p := filepath.Join(cache, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	put("cache/download/example.com/greet/@v/v1.0.0.mod", "module example.com/greet\n")
	put("cache/download/example.com/greet/@v/v1.0.0.zip", "zip")
	put("example.com/greet@v1.0.0/greet.go", "package greet\n")
	put("cache/download/example.com/graph/@v/v1.1.1.mod", "module example.com/graph\n")
	put("cache/download/example.com/private/@v/v0.1.0.mod", "module example.com/private\n")
	put("example.com/private@v0.1.0/secret.go", "package private\n")
	files := map[string][]byte{"go.sum": []byte("example.com/greet v1.0.0 h1:g=\n" +
		"example.com/greet v1.0.0/go.mod h1:g=\n" +
		"example.com/graph v1.1.1 h1:d=\n" +
		"example.com/graph v1.1.1/go.mod h1:d=\n" +
		"example.com/absent v1.0.0 h1:a=\n")}

	view, err := ModuleView(files, cache, t.TempDir())
	require.NoError(t, err)
	var got []string
	require.NoError(t, filepath.WalkDir(view, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(view, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	}))
	assert.ElementsMatch(t, []string{
		"cache/download/example.com/greet/@v/v1.0.0.mod",
		"cache/download/example.com/greet/@v/v1.0.0.zip",
		"example.com/greet@v1.0.0/greet.go",
		"cache/download/example.com/graph/@v/v1.1.1.mod",
	}, got)

	// Once the tree is downloaded, another view holds it.
	put("example.com/graph@v1.1.1/graph.go", "package graph\n")
	again, err := ModuleView(files, cache, filepath.Dir(view))
	require.NoError(t, err)
	assert.NotEqual(t, view, again)
	assert.FileExists(t, filepath.Join(again, "example.com", "graph@v1.1.1", "graph.go"))
}
