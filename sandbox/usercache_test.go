package sandbox

import (
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
	before := testkit.TreeDigest(t, userBuild)
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
	assert.Equal(t, before, testkit.TreeDigest(t, userBuild), "a confined build changed the user's build cache")

	// A confined test finds the outputs linked for its build read-only:
	// no write, truncation, mode change, reopen for writing or link out.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "poison_test.go"), []byte(poisonTest), 0o644))
	r, err = sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "-count=1", "-run", "TestPoison", "-v", "."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Regexp(t, `tried [1-9][0-9]* linked outputs`, r.Output)
	require.NoError(t, os.Remove(filepath.Join(ws, "poison_test.go")))
	assert.Equal(t, before, testkit.TreeDigest(t, userBuild), "a confined test changed the user's build cache")

	// Confined code sees neither the user's build cache nor a writable
	// module cache.
	r, err = sb.Run(t.Context(), []string{"sh", "-c", "ls " + userBuild + "; touch " + userMod + "/poison; echo x > /run/core/core"}, RunOptions{Workspace: ws})
	require.NoError(t, err)
	assert.Contains(t, r.Output, "No such file")
	assert.Contains(t, r.Output, "Read-only file system")
	assert.NoFileExists(t, filepath.Join(userMod, "poison"))
	assert.Equal(t, before, testkit.TreeDigest(t, userBuild))

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
	assert.Contains(t, sb.userCaches().Why, "CORE_SANDBOX_USER_CACHES=off")

	_, err = ConfigFromEnv(home, func(k string) string { return map[string]string{"CORE_SANDBOX_USER_CACHES": "yes"}[k] })
	assert.ErrorContains(t, err, "CORE_SANDBOX_USER_CACHES must be on or off")

	// On by default, and a cache that would reveal the home is refused.
	cfg, err = ConfigFromEnv(home, func(k string) string {
		return map[string]string{"PATH": os.Getenv("PATH"), "HOME": home, "GOMODCACHE": home}[k]
	})
	require.NoError(t, err)
	assert.True(t, cfg.UserCaches)
	u := New(cfg).userCaches()
	assert.Empty(t, u.Mod)
	assert.Contains(t, u.Why, "which the sandbox must not see")
}

func TestOwnTreeGivesARestoredCacheToTheSandboxUser(t *testing.T) {
	testkit.RequireRoot(t, "chown needs root")
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
