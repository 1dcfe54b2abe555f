package sandbox

import (
	"archive/zip"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/deps"
)

// fakeToolchainProxy writes a file:// module proxy serving one toolchain,
// golang.org/toolchain@v0.0.1-<toolchain>.<os>-<arch>, whose bin/go prints
// its version and arguments.
func fakeToolchainProxy(t *testing.T, toolchain string) string {
	t.Helper()
	dir := t.TempDir()
	v := "v0.0.1-" + toolchain + "." + runtime.GOOS + "-" + runtime.GOARCH
	at := filepath.Join(dir, "golang.org", "toolchain", "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(at, "list"), []byte(v+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, v+".info"), []byte(`{"Version":"`+v+`"}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, v+".mod"), []byte("module golang.org/toolchain\n"), 0o644))
	f, err := os.Create(filepath.Join(at, v+".zip"))
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	prefix := "golang.org/toolchain@" + v + "/"
	for name, body := range map[string]string{
		"bin/go":          "#!/bin/sh\necho \"go version " + toolchain + " fake: $*\"\n",
		"VERSION":         toolchain + "\n",
		"pkg/tool/README": "the fake has no tools\n",
		"lib/README":      "nor libraries\n",
		"bin/gofmt":       "#!/bin/sh\necho fake gofmt\n",
	} {
		w, err := zw.Create(prefix + name)
		require.NoError(t, err)
		_, err = w.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return "file://" + dir
}

func TestTargetToolchain(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy := fakeToolchainProxy(t, "go1.99.0")
	home := t.TempDir()
	sb := New(Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"),
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
	ws := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.99.0\n"), 0o644))

	// The download step fetched it on the host; the confined command runs it.
	r, err := sb.Run(t.Context(), []string{"go", "version"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.True(t, r.Sandboxed)
	assert.Equal(t, "go version go1.99.0 fake: version\n", r.Output)
	assert.FileExists(t, filepath.Join(deps.ToolchainBin(filepath.Join(home, "cache", "gomod"), "go1.99.0"), "go"))

	// Host commands (go mod) run it too.
	r, err = sb.RunHost(t.Context(), []string{"go", "mod", "tidy"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, "go version go1.99.0 fake: mod tidy\n", r.Output)
}

func TestTargetToolchainFetchFails(t *testing.T) {
	t.Parallel()
	sb := New(Config{Home: t.TempDir(), Mode: ModeOff, Path: os.Getenv("PATH"),
		HostEnv: []string{"GOPROXY=file://" + t.TempDir(), "GOSUMDB=off"}})
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.98.1\n"), 0o644))
	r, err := sb.RunHost(t.Context(), []string{"go", "mod", "download"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.NotEqual(t, 0, r.ExitCode)
	assert.Contains(t, r.Output, "go.mod asks for go1.98.1 (this machine has go1.")
	assert.Contains(t, r.Output, "GOTOOLCHAIN=go1.98.1 go version")
}
