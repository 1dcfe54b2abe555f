package gocache

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
