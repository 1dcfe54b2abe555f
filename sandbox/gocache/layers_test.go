package gocache

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompilesOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		argv []string
		want bool
	}{
		{name: "the warm-up", argv: []string{"go", "test", "-exec=/bin/true", "./...", "./sub/..."}, want: true},
		{name: "go build", argv: []string{"go", "build", "./..."}, want: true},
		{name: "go vet with tags", argv: []string{"go", "vet", "-tags=integration", "."}, want: true},
		{name: "go list json deps", argv: []string{"go", "list", "-json", "-deps", "example.com/app/..."}, want: true},
		{name: "go test runs tests", argv: []string{"go", "test", "./..."}},
		{name: "exec other than true", argv: []string{"go", "test", "-exec=./run", "./..."}},
		{name: "warm-up with toolexec", argv: []string{"go", "test", "-exec=/bin/true", "-toolexec=./x", "./..."}},
		{name: "external linker", argv: []string{"go", "build", "-ldflags=-extld=./evil", "."}},
		{name: "gcflags", argv: []string{"go", "build", "-gcflags=all=-N", "."}},
		{name: "vettool", argv: []string{"go", "vet", "-vettool=./v", "."}},
		{name: "overlay", argv: []string{"go", "build", "-overlay", "o.json", "."}},
		{name: "a path out", argv: []string{"go", "build", "../other"}},
		{name: "an absolute path", argv: []string{"go", "build", "/tmp/x"}},
		{name: "go run", argv: []string{"go", "run", "."}},
		{name: "go generate", argv: []string{"go", "generate", "./..."}},
		{name: "not go", argv: []string{"sh", "-c", "go build"}},
		{name: "go alone", argv: []string{"go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CompilesOnly(tt.argv))
		})
	}
}

func TestPromoteTakesOnlyWhatHashesToItsOutputID(t *testing.T) {
	t.Parallel()
	run, shared := t.TempDir(), t.TempDir()
	good, bad, linked, short := []byte("genuine output"), []byte("planted"), []byte("linked"), []byte("short")
	id := func(s string) [32]byte { return sha256.Sum256([]byte("action " + s)) }
	out := func(b []byte) [32]byte { return sha256.Sum256(b) }
	write := func(o [32]byte, b []byte) {
		p := cachePath(run, o, "d")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	write(out(good), good)
	// Bytes that are not what their name says.
	liar := out([]byte("what the go command put"))
	write(liar, bad)
	// A link to a file of the right bytes elsewhere.
	elsewhere := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(elsewhere, linked, 0o644))
	lp := cachePath(run, out(linked), "d")
	require.NoError(t, os.MkdirAll(filepath.Dir(lp), 0o755))
	require.NoError(t, os.Symlink(elsewhere, lp))
	write(out(short), short)

	n, err := Promote([]PutNotice{
		{action: id("good"), out: out(good), size: int64(len(good))},
		{action: id("liar"), out: liar, size: int64(len(bad))},
		{action: id("link"), out: out(linked), size: int64(len(linked))},
		{action: id("size"), out: out(short), size: 1 << 20},
		{action: id("missing"), out: out([]byte("never written")), size: 3},
	}, run, shared)
	assert.Equal(t, 1, n)
	assert.Error(t, err)
	e, ok := readEntry(shared, id("good"))
	require.True(t, ok)
	assert.Equal(t, out(good), e.out)
	got, err := os.ReadFile(cachePath(shared, out(good), "d"))
	require.NoError(t, err)
	assert.Equal(t, good, got)
	for _, name := range []string{"liar", "link", "size", "missing"} {
		_, ok := readEntry(shared, id(name))
		assert.False(t, ok, name)
	}
	assert.NoFileExists(t, cachePath(shared, liar, "d"))
	assert.NoFileExists(t, cachePath(shared, out(linked), "d"))
}

func TestRepoKey(t *testing.T) {
	t.Parallel()
	assert.Empty(t, RepoKey(""))
	assert.Len(t, RepoKey("acme/app"), 16)
	assert.Equal(t, RepoKey("acme/app"), RepoKey("Acme/App"))
	assert.Equal(t, RepoKey("acme/app"), RepoKey("acme/app.git"))
	assert.NotEqual(t, RepoKey("acme/app"), RepoKey("acme/other"))
	assert.NotEqual(t, RepoKey("/src/App"), RepoKey("/src/app"), "a path is a path")
}

func TestOwnerAlive(t *testing.T) {
	t.Parallel()
	assert.True(t, ownerAlive(thisProcess()))
	assert.False(t, ownerAlive(fmt.Sprintf("%d 1", os.Getpid())), "another process with this pid")
	assert.False(t, ownerAlive("999999999 1"))
	assert.False(t, ownerAlive("x"))
	assert.False(t, ownerAlive(""))
}

func TestSharedDir(t *testing.T) {
	t.Parallel()
	key := RepoKey("acme/app")
	tests := []struct {
		name, home, repo string
		want             string
	}{
		{name: "a repository", home: "/state", repo: "acme/app", want: "/state/cache/go-build-shared/" + key},
		{name: "its name in another case", home: "/state", repo: "Acme/App.git", want: "/state/cache/go-build-shared/" + key},
		{name: "another repository", home: "/state", repo: "acme/other", want: "/state/cache/go-build-shared/" + RepoKey("acme/other")},
		{name: "no repository", home: "/state", repo: ""},
		{name: "a blank repository", home: "/state", repo: "  "},
		{name: "no state directory", home: "", repo: "acme/app"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SharedDir(tt.home, tt.repo))
		})
	}
}

func TestSharedLayerIsMadeOnlyForARepository(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	assert.Empty(t, SharedLayer(home, ""))
	assert.NoDirExists(t, filepath.Join(home, "cache"), "a sandbox with no repository made a shared layer")
	dir := SharedLayer(home, "acme/app")
	assert.Equal(t, SharedDir(home, "acme/app"), dir)
	assert.DirExists(t, dir)
}

func TestProgCommand(t *testing.T) {
	t.Parallel()
	const exe = "/run/core/core"
	tests := []struct {
		name, dir string
		shared    bool
		want      string
	}{
		{name: "plain", dir: "/cache/run", want: exe + " sandbox gocache --dir '/cache/run' --socket " + SocketPath + " --stage " + StagePath},
		{name: "with the shared layer", dir: "/cache/run", shared: true, want: exe + " sandbox gocache --dir '/cache/run' --socket " + SocketPath + " --stage " + StagePath + " --shared " + SharedPath},
		{name: "a single quote", dir: "/cache/it's", want: exe + ` sandbox gocache --dir "/cache/it's" --socket ` + SocketPath + " --stage " + StagePath},
		{name: "both quotes cannot be quoted", dir: `/cache/it's "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ProgCommand(exe, tt.dir, tt.shared))
		})
	}
}

// owner stands for a Sandbox: what run layers belong to (not of size
// zero, so that two are two addresses).
type owner struct{ _ byte }

func TestRunLayers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws, gone := t.TempDir(), t.TempDir()

	// Two runs (two owners) in one workspace, at once or one after the
	// other (a resume), never share a layer.
	first := new(owner)
	firstLayers := NewLayers(first, home)
	l1, err := firstLayers.Run(ws)
	require.NoError(t, err)
	again, err := firstLayers.Run(ws)
	require.NoError(t, err)
	assert.Equal(t, l1, again, "one run, one layer")
	planted := filepath.Join(l1, "planted")
	require.NoError(t, os.WriteFile(planted, []byte("x"), 0o644))
	second := new(owner)
	l2, err := NewLayers(second, home).Run(ws)
	require.NoError(t, err)
	assert.NotEqual(t, l1, l2)
	assert.NoFileExists(t, filepath.Join(l2, "planted"))
	assert.FileExists(t, planted, "a live run's layer was swept")

	// A layer whose workspace is gone, one whose process ended, and one
	// of an older core: swept by the next run.
	lg, err := NewLayers(new(owner), home).Run(gone)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(lg, "ab"), 0o755))
	require.NoError(t, os.Chmod(filepath.Join(lg, "ab"), 0)) // as confined code may leave it
	require.NoError(t, os.RemoveAll(gone))
	dead, err := NewLayers(new(owner), home).Run(ws)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(dead), "owner"), []byte("999999999 1"), 0o600))
	_, err = NewLayers(new(owner), home).Run(t.TempDir())
	require.NoError(t, err)
	assert.NoDirExists(t, filepath.Dir(lg), "the layer of a gone workspace stays")
	assert.NoDirExists(t, filepath.Dir(dead), "the layer of an ended process stays")
	assert.DirExists(t, l1)
	assert.DirExists(t, l2)
	runtime.KeepAlive(first)
	runtime.KeepAlive(second)
}

// TestSweepKeepsALayerBeingMade: a layer whose owner or workspace file is
// not there whole yet (another Sandbox is making it) is kept while it is
// recent, and swept once it is a day old.
func TestSweepKeepsALayerBeingMade(t *testing.T) {
	t.Parallel()
	runs := filepath.Join(t.TempDir(), "go-build-run")
	ws := t.TempDir()
	layer := func(name, workspace, owner string) string {
		dir := filepath.Join(runs, name)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "layer"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "workspace"), []byte(workspace), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "owner"), []byte(owner), 0o600))
		return dir
	}
	emptyOwner := layer("a", ws, "")
	emptyWorkspace := layer("b", "", thisProcess())
	old := layer("c", ws, "")
	day := time.Now().Add(-25 * time.Hour)
	require.NoError(t, os.Chtimes(old, day, day))

	sweepRunLayers(runs, filepath.Join(t.TempDir(), LegacyBuildCache))
	assert.DirExists(t, emptyOwner, "a layer whose owner file is being written was swept")
	assert.DirExists(t, emptyWorkspace, "a layer whose workspace file is being written was swept")
	assert.NoDirExists(t, old, "a day-old layer with no owner stays")
}
