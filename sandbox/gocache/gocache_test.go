package gocache

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goDriver speaks to a GOCACHEPROG as the go command does.
type goDriver struct {
	t   *testing.T
	enc *json.Encoder
	dec *json.Decoder
	id  int64
}

func startCacheProg(t *testing.T, dir, socket, stage string) (*goDriver, <-chan error) {
	t.Helper()
	return startCacheProgShared(t, dir, socket, stage, "")
}

// startCacheProgShared is startCacheProg reading a shared layer too.
func startCacheProgShared(t *testing.T, dir, socket, stage, shared string) (*goDriver, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := ServeProg(inR, outW, dir, socket, stage, shared)
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	d := &goDriver{t: t, enc: json.NewEncoder(inW), dec: json.NewDecoder(bufio.NewReader(outR))}
	var hello progResponse
	require.NoError(t, d.dec.Decode(&hello))
	assert.Equal(t, []string{"get", "put", "close"}, hello.KnownCommands)
	return d, done
}

func (d *goDriver) send(req progRequest, body []byte) progResponse {
	d.t.Helper()
	d.id++
	req.ID = d.id
	require.NoError(d.t, d.enc.Encode(req))
	if body != nil {
		require.NoError(d.t, d.enc.Encode(body))
	}
	var res progResponse
	require.NoError(d.t, d.dec.Decode(&res))
	require.Equal(d.t, req.ID, res.ID)
	return res
}

// putEntry writes an entry into the cache directory dir.
func putEntry(t testing.TB, dir string, id [32]byte, e cacheEntry, body string) {
	t.Helper()
	c, err := openCacheStore(dir)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.writeEntry(id, e, strings.NewReader(body)))
}

// under reports whether path lies in dir.
func under(path, dir string) bool {
	return strings.HasPrefix(path, filepath.Clean(dir)+string(filepath.Separator))
}

func hashOf(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func TestCacheProgPutGetMiss(t *testing.T) {
	dir := t.TempDir()
	d, done := startCacheProg(t, dir, "", "")
	body := []byte("compiled object")
	res := d.send(progRequest{Command: "put", ActionID: hashOf("a1"), OutputID: hashOf("o1"), BodySize: int64(len(body))}, body)
	require.Empty(t, res.Err)
	got, err := os.ReadFile(res.DiskPath)
	require.NoError(t, err)
	assert.Equal(t, body, got)
	assert.True(t, under(res.DiskPath, dir))

	res = d.send(progRequest{Command: "get", ActionID: hashOf("a1")}, nil)
	assert.False(t, res.Miss)
	assert.Equal(t, hashOf("o1"), res.OutputID)
	assert.Equal(t, int64(len(body)), res.Size)
	require.NotNil(t, res.Time)

	// An empty output has no body line.
	res = d.send(progRequest{Command: "put", ActionID: hashOf("a2"), OutputID: hashOf("o2")}, nil)
	require.Empty(t, res.Err)
	res = d.send(progRequest{Command: "get", ActionID: hashOf("a2")}, nil)
	assert.False(t, res.Miss)
	assert.Zero(t, res.Size)

	assert.True(t, d.send(progRequest{Command: "get", ActionID: hashOf("never")}, nil).Miss)
	assert.Contains(t, d.send(progRequest{Command: "get", ActionID: []byte("short")}, nil).Err, "32 bytes")
	assert.Contains(t, d.send(progRequest{Command: "frob"}, nil).Err, "unknown command")

	// An entry whose output is gone, or is a link, is a miss.
	require.NoError(t, os.Remove(cachePath(dir, [32]byte(hashOf("o1")), "d")))
	assert.True(t, d.send(progRequest{Command: "get", ActionID: hashOf("a1")}, nil).Miss)
	require.NoError(t, os.Symlink("/etc/passwd", cachePath(dir, [32]byte(hashOf("o1")), "d")))
	assert.True(t, d.send(progRequest{Command: "get", ActionID: hashOf("a1")}, nil).Miss)

	d.send(progRequest{Command: "close"}, nil)
	require.NoError(t, <-done)
}

func TestCacheProgReadsTheUserCacheThroughTheHost(t *testing.T) {
	for _, linked := range []bool{true, false} {
		t.Run(map[bool]string{true: "linked", false: "copied"}[linked], func(t *testing.T) {
			user, sandbox := t.TempDir(), t.TempDir()
			stageParent := ""
			if linked {
				stageParent = filepath.Join(t.TempDir(), "view") // on the user's file system
			}
			body := "the user's compiled fmt"
			putEntry(t, user, [32]byte(hashOf("fmt")), cacheEntry{out: [32]byte(hashOf("fmt-out")), size: int64(len(body)), time: time.Unix(1700000000, 0)}, body)
			before := testkit.TreeDigest(t, user)

			srv, err := ServeUser(user, sandbox, stageParent)
			require.NoError(t, err)
			require.Equal(t, linked, srv.stage != "")
			d, done := startCacheProg(t, sandbox, srv.Socket(), srv.stage)

			res := d.send(progRequest{Command: "get", ActionID: hashOf("fmt")}, nil)
			require.False(t, res.Miss, res.Err)
			got, err := os.ReadFile(res.DiskPath)
			require.NoError(t, err)
			assert.Equal(t, body, string(got))
			assert.Equal(t, time.Unix(1700000000, 0).UnixNano(), res.Time.UnixNano())
			userFile, err := os.Stat(cachePath(user, [32]byte(hashOf("fmt-out")), "d"))
			require.NoError(t, err)
			given, err := os.Stat(res.DiskPath)
			require.NoError(t, err)
			if linked {
				assert.True(t, under(res.DiskPath, srv.stage), "linked into the view: %s", res.DiskPath)
				assert.True(t, os.SameFile(userFile, given), "no byte copied")
			} else {
				assert.True(t, under(res.DiskPath, sandbox), "a copy in the sandbox-only cache: %s", res.DiskPath)
				assert.False(t, os.SameFile(userFile, given))
			}
			assert.True(t, d.send(progRequest{Command: "get", ActionID: hashOf("nothing")}, nil).Miss)

			// What the sandbox puts stays in the sandbox-only cache.
			res = d.send(progRequest{Command: "put", ActionID: hashOf("new"), OutputID: hashOf("new-out"), BodySize: 3}, []byte("new"))
			require.Empty(t, res.Err)
			assert.True(t, under(res.DiskPath, sandbox))
			d.send(progRequest{Command: "close"}, nil)
			require.NoError(t, <-done)
			stage := srv.stage
			srv.Close()
			assert.Equal(t, before, testkit.TreeDigest(t, user), "the user's cache changed")

			// The next command finds it without the host: a copy in the
			// sandbox-only cache, or the link in the view.
			d, done = startCacheProg(t, sandbox, filepath.Join(t.TempDir(), "no-socket"), stage)
			res = d.send(progRequest{Command: "get", ActionID: hashOf("fmt")}, nil)
			assert.False(t, res.Miss)
			if linked {
				assert.True(t, under(res.DiskPath, stage), res.DiskPath)
			}
			d.send(progRequest{Command: "close"}, nil)
			require.NoError(t, <-done)
		})
	}
}

func TestUserCacheServerRefusesBadEntries(t *testing.T) {
	user := t.TempDir()
	id := [32]byte(hashOf("x"))
	// An entry whose output is a link to a host file is a miss.
	line := entryLine(id, cacheEntry{out: [32]byte(hashOf("x-out")), size: 4, time: time.Unix(0, 1)})
	require.NoError(t, os.MkdirAll(filepath.Dir(cachePath(user, id, "a")), 0o755))
	require.NoError(t, os.WriteFile(cachePath(user, id, "a"), []byte(line), 0o644))
	out := cachePath(user, [32]byte(hashOf("x-out")), "d")
	require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
	require.NoError(t, os.Symlink("/etc/hostname", out))
	into := t.TempDir()
	srv, err := ServeUser(user, into, t.TempDir())
	require.NoError(t, err)
	defer srv.Close()
	d, done := startCacheProg(t, into, srv.Socket(), srv.stage)
	assert.True(t, d.send(progRequest{Command: "get", ActionID: id[:]}, nil).Miss)
	d.send(progRequest{Command: "close"}, nil)
	require.NoError(t, <-done)
}

func FuzzParseEntry(f *testing.F) {
	id := [32]byte(hashOf("a"))
	f.Add([]byte(entryLine(id, cacheEntry{out: [32]byte(hashOf("o")), size: 12, time: time.Unix(0, 1700000000)})))
	f.Add([]byte("v1 zz"))
	f.Add([]byte(fmt.Sprintf("v1 %x %x %20d %20d\n", id, hashOf("o"), -1, 1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, ok := parseEntry(b, id)
		if !ok {
			return
		}
		if e.size < 0 || e.size > maxCacheObject {
			t.Fatalf("accepted a size of %d", e.size)
		}
	})
}

func TestUserCacheServerWritesOnlyIntoTheSandboxCache(t *testing.T) {
	user, into, victim := t.TempDir(), t.TempDir(), t.TempDir()
	id, out := [32]byte(hashOf("planted")), [32]byte(hashOf("planted-out"))
	putEntry(t, user, id, cacheEntry{out: out, size: 4, time: time.Now()}, "body")
	// Confined code replaced the output's directory with a link out.
	require.NoError(t, os.Symlink(victim, filepath.Join(into, fmt.Sprintf("%02x", out[0]))))
	srv, err := ServeUser(user, into, "") // copies
	require.NoError(t, err)
	defer srv.Close()
	d, done := startCacheProg(t, into, srv.Socket(), "")
	assert.True(t, d.send(progRequest{Command: "get", ActionID: id[:]}, nil).Miss)
	d.send(progRequest{Command: "close"}, nil)
	require.NoError(t, <-done)
	entries, err := os.ReadDir(victim)
	require.NoError(t, err)
	assert.Empty(t, entries, "the host wrote through a planted link")
}

func TestFreshViewStartsAfreshAfterAWeek(t *testing.T) {
	cache := t.TempDir()
	view := FreshView(cache)
	require.FileExists(t, filepath.Join(view, ".born"))
	require.NoError(t, os.WriteFile(filepath.Join(view, "kept"), nil, 0o600))
	assert.Equal(t, view, FreshView(cache))
	assert.FileExists(t, filepath.Join(view, "kept"), "a young view stays")

	old := time.Now().Add(-viewAge - time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(view, ".born"), old, old))
	assert.Equal(t, view, FreshView(cache))
	assert.NoFileExists(t, filepath.Join(view, "kept"), "a week-old view starts afresh")
	olds, err := filepath.Glob(view + ".old-*")
	require.NoError(t, err)
	require.Len(t, olds, 1, "the old view waits a day for commands still reading it")

	// A day later, the next rotation removes it.
	require.NoError(t, os.Chtimes(olds[0], old, old))
	require.NoError(t, os.Chtimes(filepath.Join(view, ".born"), old, old))
	FreshView(cache)
	assert.NoDirExists(t, olds[0])
}
