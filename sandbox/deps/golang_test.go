package deps

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModulesCached(t *testing.T) {
	cache := t.TempDir()
	put := func(p string, dir bool) {
		full := filepath.Join(cache, p)
		if dir {
			require.NoError(t, os.MkdirAll(full, 0o755))
			return
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte("x"), 0o644))
	}
	put("cache/download/example.com/!greet/@v/v1.0.0.mod", false)
	put("example.com/!greet@v1.0.0", true)
	put("cache/download/example.com/other/@v/v0.1.0.mod", false)
	gomod := []byte("module example.com/app\n\ngo 1.21\n\nrequire example.com/Greet v1.0.0\n")
	sum := []byte("example.com/Greet v1.0.0 h1:abc=\nexample.com/Greet v1.0.0/go.mod h1:def=\nexample.com/other v0.1.0/go.mod h1:ghi=\n")
	files := map[string][]byte{"go.mod": gomod, "go.sum": sum}
	assert.True(t, GoModulesCached(files, cache))

	assert.True(t, GoModulesCached(map[string][]byte{"go.mod": []byte("module x\n")}, cache), "nothing required")
	assert.False(t, GoModulesCached(map[string][]byte{"go.mod": gomod}, cache), "a requirement without its go.sum line")
	assert.False(t, GoModulesCached(map[string][]byte{"go.mod": gomod, "go.sum": []byte("example.com/Greet v1.0.0\n")}, cache), "a malformed line")
	assert.False(t, GoModulesCached(map[string][]byte{"go.mod": gomod, "go.sum": append(sum, "example.com/gone v1.0.0 h1:x=\n"...)}, cache), "a module not in the cache")

	put("example.com/!greet@v1.0.0.partial", false)
	assert.False(t, GoModulesCached(files, cache), "an interrupted extraction")
	require.NoError(t, os.Remove(filepath.Join(cache, "example.com/!greet@v1.0.0.partial")))
	require.NoError(t, os.Remove(filepath.Join(cache, "example.com/!greet@v1.0.0")))
	assert.False(t, GoModulesCached(files, cache), "not extracted")
}

func TestWantedToolchain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, gomod, want string
	}{
		{name: "older go line", gomod: "module m\n\ngo 1.21\n", want: ""},
		{name: "same release", gomod: "module m\n\ngo 1.26.8\n", want: ""},
		{name: "newer patch", gomod: "module m\n\ngo 1.26.9\n", want: "go1.26.9"},
		{name: "newer language is its first release", gomod: "module m\n\ngo 1.27\n", want: "go1.27.0"},
		{name: "toolchain line wins when newer", gomod: "module m\n\ngo 1.27.0\ntoolchain go1.27.3\n", want: "go1.27.3"},
		{name: "toolchain line older than go line", gomod: "module m\n\ngo 1.28.1\ntoolchain go1.27.3\n", want: "go1.28.1"},
		{name: "release candidate", gomod: "module m\n\ngo 1.27rc2\n", want: "go1.27rc2"},
		{name: "comment", gomod: "module m\n\ngo 1.27.2 // for iterators\n", want: "go1.27.2"},
		{name: "no go line", gomod: "module m\n", want: ""},
		{name: "garbage", gomod: "module m\n\ngo banana\n", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, WantedToolchain([]byte(tt.gomod), "go1.26.8"))
		})
	}
}
