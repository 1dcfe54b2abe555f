package sandbox

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/lang"
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
		err := ServeGoCacheProg(inR, outW, dir, socket, stage, shared)
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
	assert.True(t, within(res.DiskPath, dir))

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
			before := treeDigest(t, user)

			srv, err := serveUserCache(user, sandbox, stageParent)
			require.NoError(t, err)
			require.Equal(t, linked, srv.stage != "")
			d, done := startCacheProg(t, sandbox, srv.socket(), srv.stage)

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
				assert.True(t, within(res.DiskPath, srv.stage), "linked into the view: %s", res.DiskPath)
				assert.True(t, os.SameFile(userFile, given), "no byte copied")
			} else {
				assert.True(t, within(res.DiskPath, sandbox), "a copy in the sandbox-only cache: %s", res.DiskPath)
				assert.False(t, os.SameFile(userFile, given))
			}
			assert.True(t, d.send(progRequest{Command: "get", ActionID: hashOf("nothing")}, nil).Miss)

			// What the sandbox puts stays in the sandbox-only cache.
			res = d.send(progRequest{Command: "put", ActionID: hashOf("new"), OutputID: hashOf("new-out"), BodySize: 3}, []byte("new"))
			require.Empty(t, res.Err)
			assert.True(t, within(res.DiskPath, sandbox))
			d.send(progRequest{Command: "close"}, nil)
			require.NoError(t, <-done)
			stage := srv.stage
			srv.Close()
			assert.Equal(t, before, treeDigest(t, user), "the user's cache changed")

			// The next command finds it without the host: a copy in the
			// sandbox-only cache, or the link in the view.
			d, done = startCacheProg(t, sandbox, filepath.Join(t.TempDir(), "no-socket"), stage)
			res = d.send(progRequest{Command: "get", ActionID: hashOf("fmt")}, nil)
			assert.False(t, res.Miss)
			if linked {
				assert.True(t, within(res.DiskPath, stage), res.DiskPath)
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
	srv, err := serveUserCache(user, into, t.TempDir())
	require.NoError(t, err)
	defer srv.Close()
	d, done := startCacheProg(t, into, srv.socket(), srv.stage)
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

// treeDigest hashes every path, mode, size and content under dir.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d %d\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	}))
	return fmt.Sprintf("%x", h.Sum(nil))
}

// compiles lists the packages a go build -x output compiled.
func compiles(out string) []string {
	var pkgs []string
	for _, m := range regexp.MustCompile(`/compile .*? -p (\S+) `).FindAllStringSubmatch(out, -1) {
		pkgs = append(pkgs, m[1])
	}
	return pkgs
}

func TestConfinedBuildReadsTheUserCachesAndWritesNeither(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy := fileProxy(t)
	ws := goModule(t, proxy)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "app.go"),
		[]byte("package app\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/greet\"\n)\n\n// Greeting greets the world.\nfunc Greeting() string { return fmt.Sprint(greet.Hello(\"world\")) }\n"), 0o644))

	// The user: their own caches, warmed by their own go build, of the
	// package and of what a test binary needs (testing's tree: compiled
	// in the confined test below instead, that alone ran past its five
	// minutes on a busy machine).
	home := t.TempDir()
	userBuild, userMod := filepath.Join(home, "gocache"), filepath.Join(home, "gomod")
	goEnv := []string{"GOCACHE=" + userBuild, "GOMODCACHE=" + userMod}
	warm := exec.Command("go", "build", "./...", "testing/internal/testdeps")
	warm.Dir = ws
	warm.Env = append(os.Environ(), append(goEnv, "GOPROXY="+proxy, "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local")...)
	out, err := warm.CombinedOutput()
	require.NoError(t, err, string(out))
	before := treeDigest(t, userBuild)
	self, err := os.Executable()
	require.NoError(t, err)

	// A fresh $CORE_HOME: the module download finds the user's module
	// cache full, and the build finds fmt and greet in the user's cache.
	coreHome := t.TempDir()
	sb := New(Config{Home: coreHome, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: home, UserCaches: true, GoEnv: goEnv, CacheProg: self,
		HostEnv: []string{"GOPROXY=off"}})
	r, err := sb.Verify(t.Context(), lang.TierBuild, []string{"go", "build", "-x", "./..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.True(t, r.Sandboxed)
	assert.Empty(t, compiles(r.Output), "everything came from the user's build cache")
	assert.NoDirExists(t, filepath.Join(coreHome, "cache", "gomod"), "the user's module cache was used")
	assert.Equal(t, before, treeDigest(t, userBuild), "a confined build changed the user's build cache")

	// A confined test finds the outputs linked for its build read-only:
	// no write, truncation, mode change, reopen for writing or link out.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "poison_test.go"), []byte(poisonTest), 0o644))
	r, err = sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "-count=1", "-run", "TestPoison", "-v", "."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Regexp(t, `tried [1-9][0-9]* linked outputs`, r.Output)
	require.NoError(t, os.Remove(filepath.Join(ws, "poison_test.go")))
	assert.Equal(t, before, treeDigest(t, userBuild), "a confined test changed the user's build cache")

	// Confined code sees neither the user's build cache nor a writable
	// module cache.
	r, err = sb.Run(t.Context(), []string{"sh", "-c", "ls " + userBuild + "; touch " + userMod + "/poison; echo x > /run/core/core"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.Contains(t, r.Output, "No such file")
	assert.Contains(t, r.Output, "Read-only file system")
	assert.NoFileExists(t, filepath.Join(userMod, "poison"))
	assert.Equal(t, before, treeDigest(t, userBuild))

	// The control: without core's cache program the same build compiles.
	sb = New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: home, UserCaches: true, GoEnv: goEnv,
		HostEnv: []string{"GOPROXY=off"}})
	r, err = sb.Verify(t.Context(), lang.TierBuild, []string{"go", "build", "-x", "./..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Contains(t, compiles(r.Output), "fmt")
}

func TestUserCachesOff(t *testing.T) {
	home := testkit.GoHome(t) // its go env runs with HOME=home
	cfg, err := ConfigFromEnv(home, func(k string) string {
		return map[string]string{"CORE_SANDBOX_USER_CACHES": "off", "PATH": os.Getenv("PATH")}[k]
	})
	require.NoError(t, err)
	sb := New(cfg)
	mod, err := sb.modCache()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, "cache", "gomod"), mod)
	assert.Contains(t, sb.userCaches().why, "CORE_SANDBOX_USER_CACHES=off")

	_, err = ConfigFromEnv(home, func(k string) string { return map[string]string{"CORE_SANDBOX_USER_CACHES": "yes"}[k] })
	assert.ErrorContains(t, err, "CORE_SANDBOX_USER_CACHES must be on or off")

	// On by default, and a cache that would reveal the home is refused.
	cfg, err = ConfigFromEnv(home, func(k string) string {
		return map[string]string{"PATH": os.Getenv("PATH"), "HOME": home, "GOMODCACHE": home}[k]
	})
	require.NoError(t, err)
	assert.True(t, cfg.UserCaches)
	u := New(cfg).userCaches()
	assert.Empty(t, u.mod)
	assert.Contains(t, u.why, "which the sandbox must not see")
}

func TestOwnTreeGivesARestoredCacheToTheSandboxUser(t *testing.T) {
	requireRoot(t, "chown needs root")
	dir := t.TempDir()
	// As actions/cache restores it: everything the runner's user's.
	for _, p := range []string{"00", "00/x-d", "ab", "ab/y-a"} {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "-d") || strings.HasSuffix(p, "-a") {
			require.NoError(t, os.WriteFile(full, []byte("x"), 0o644))
		} else {
			require.NoError(t, os.Mkdir(full, 0o755))
		}
		require.NoError(t, os.Lchown(full, 1001, 1001))
	}
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "ab", "link")))
	require.NoError(t, os.Lchown(dir, 65534, 65534))
	require.NoError(t, ownTree(dir, 65534))
	require.NoError(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := e.Info()
		require.NoError(t, err)
		assert.Equal(t, 65534, fileOwner(fi), p)
		return nil
	}))
	fi, err := os.Stat("/etc/passwd")
	require.NoError(t, err)
	assert.Equal(t, 0, fileOwner(fi), "a link was followed")
}

func TestUserCacheServerWritesOnlyIntoTheSandboxCache(t *testing.T) {
	user, into, victim := t.TempDir(), t.TempDir(), t.TempDir()
	id, out := [32]byte(hashOf("planted")), [32]byte(hashOf("planted-out"))
	putEntry(t, user, id, cacheEntry{out: out, size: 4, time: time.Now()}, "body")
	// Confined code replaced the output's directory with a link out.
	require.NoError(t, os.Symlink(victim, filepath.Join(into, fmt.Sprintf("%02x", out[0]))))
	srv, err := serveUserCache(user, into, "") // copies
	require.NoError(t, err)
	defer srv.Close()
	d, done := startCacheProg(t, into, srv.socket(), "")
	assert.True(t, d.send(progRequest{Command: "get", ActionID: id[:]}, nil).Miss)
	d.send(progRequest{Command: "close"}, nil)
	require.NoError(t, <-done)
	entries, err := os.ReadDir(victim)
	require.NoError(t, err)
	assert.Empty(t, entries, "the host wrote through a planted link")
}

// poisonTest tries every way to change a linked output of the user's.
const poisonTest = `package app

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestPoison(t *testing.T) {
	files, _ := filepath.Glob("/run/core/gocache-user/*/*-d")
	for _, f := range files {
		if w, err := os.OpenFile(f, os.O_WRONLY, 0); err == nil {
			w.Close()
			t.Errorf("opened %s for writing", f)
		}
		if os.Chmod(f, 0o666) == nil {
			t.Errorf("changed the mode of %s", f)
		}
		if os.Truncate(f, 0) == nil {
			t.Errorf("truncated %s", f)
		}
		if os.Link(f, filepath.Join(t.TempDir(), "l")) == nil {
			t.Errorf("linked %s out", f)
		}
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		if w, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", r.Fd()), os.O_WRONLY, 0); err == nil {
			w.Close()
			t.Errorf("reopened %s for writing", f)
		}
		r.Close()
	}
	if os.WriteFile("/run/core/gocache-user/new", []byte("x"), 0o644) == nil {
		t.Error("wrote into the linked view")
	}
	fmt.Printf("tried %d linked outputs\n", len(files))
}
`

func TestScanDirFollowsTheCaches(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Home: "/state", UserCaches: true, HostHome: "/home/u"}, "/home/u/.cache/core/rootonly"},
		{Config{Home: "/state", UserCaches: true, HostHome: "/home/u", GoEnv: []string{"XDG_CACHE_HOME=/xdg"}}, "/xdg/core/rootonly"},
		{Config{Home: "/state", UserCaches: true, HostHome: "/home/u", GoEnv: []string{"XDG_CACHE_HOME=rel"}}, "/home/u/.cache/core/rootonly"},
		{Config{Home: "/state", HostHome: "/home/u"}, "/state/cache/rootonly"},
		{Config{Home: "/state", UserCaches: true}, "/state/cache/rootonly"},
		{Config{}, ""},
	} {
		assert.Equal(t, tc.want, New(tc.cfg).scanDir(), "%+v", tc.cfg)
	}
}

func TestFreshViewStartsAfreshAfterAWeek(t *testing.T) {
	cache := t.TempDir()
	view := freshView(cache)
	require.FileExists(t, filepath.Join(view, ".born"))
	require.NoError(t, os.WriteFile(filepath.Join(view, "kept"), nil, 0o600))
	assert.Equal(t, view, freshView(cache))
	assert.FileExists(t, filepath.Join(view, "kept"), "a young view stays")

	old := time.Now().Add(-viewAge - time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(view, ".born"), old, old))
	assert.Equal(t, view, freshView(cache))
	assert.NoFileExists(t, filepath.Join(view, "kept"), "a week-old view starts afresh")
	olds, err := filepath.Glob(view + ".old-*")
	require.NoError(t, err)
	require.Len(t, olds, 1, "the old view waits a day for commands still reading it")

	// A day later, the next rotation removes it.
	require.NoError(t, os.Chtimes(olds[0], old, old))
	require.NoError(t, os.Chtimes(filepath.Join(view, ".born"), old, old))
	freshView(cache)
	assert.NoDirExists(t, olds[0])
}

func TestBuildGoesOnWhenTheCacheProgramCannotServe(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	ws := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/x\n\ngo 1.21\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "x.go"), []byte("package x\n\n// X is one.\nconst X = 1\n"), 0o644))
	home := t.TempDir()
	userBuild := filepath.Join(home, "gocache")
	require.NoError(t, os.MkdirAll(userBuild, 0o755))
	// An executable that cannot serve the protocol, as core's would be if
	// it could not start inside.
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: home, UserCaches: true,
		GoEnv: []string{"GOCACHE=" + userBuild, "GOMODCACHE=" + filepath.Join(home, "gomod")}, CacheProg: "/bin/false"})
	r, err := sb.Verify(t.Context(), lang.TierBuild, []string{"go", "build", "./..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.NotContains(t, r.Output, "GOCACHEPROG")
	assert.True(t, sb.noCacheProg.Load(), "the Sandbox stops trying")
}

func TestCacheProgFailedWords(t *testing.T) {
	for out, want := range map[string]bool{
		"GOCACHEPROG exited pre-Close with 1 pending requests\n":                         true,
		"go: error starting GOCACHEPROG program \"/run/core/core\": permission denied\n": true,
		"error reading JSON from GOCACHEPROG: EOF\n":                                     true,
		"--- FAIL: TestX\n    x_test.go:3: GOCACHEPROG exited pre-Close\n":               false,
		"ok  \texample.com/x\t0.1s\n":                                                    false,
	} {
		assert.Equal(t, want, cacheProgFailed.MatchString(out), out)
	}
}
