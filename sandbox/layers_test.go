package sandbox

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/lang"
)

// poisonCacheTest is a hostile test: it rewrites every output of its run's
// build cache, tries to write the shared layer, and puts a bad entry for
// every action the shared layer holds through core's own cache program.
const poisonCacheTest = `package app

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlant(t *testing.T) {
	outs, _ := filepath.Glob(filepath.Join(os.Getenv("GOCACHE"), "*", "*-d"))
	rewritten := 0
	for _, f := range outs {
		os.Chmod(f, 0o644)
		if os.WriteFile(f, []byte("poison"), 0o644) == nil {
			rewritten++
		}
	}
	shared, _ := filepath.Glob("/run/core/gocache-shared/*/*-a")
	for _, f := range shared {
		if os.WriteFile(f, []byte("poison"), 0o644) == nil {
			t.Errorf("rewrote %s", f)
		}
	}
	if os.WriteFile("/run/core/gocache-shared/00/new-a", []byte("x"), 0o644) == nil {
		t.Error("wrote into the shared layer")
	}
	prog := exec.Command("/run/core/core", "sandbox", "gocache", "--dir", os.Getenv("GOCACHE"),
		"--socket", "/run/core/gocache.sock", "--shared", "/run/core/gocache-shared")
	in, _ := prog.StdinPipe()
	out, _ := prog.StdoutPipe()
	if err := prog.Start(); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bufio.NewReader(out))
	var hello map[string]any
	if err := dec.Decode(&hello); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(in)
	body := []byte("poison")
	sum := sha256.Sum256(body)
	put := 0
	planted := sha256.Sum256([]byte("an action no run has asked for yet"))
	for i, f := range append(shared, hex.EncodeToString(planted[:])+"-a") {
		id, err := hex.DecodeString(strings.TrimSuffix(filepath.Base(f), "-a"))
		if err != nil {
			continue
		}
		enc.Encode(map[string]any{"ID": i + 1, "Command": "put", "ActionID": id, "OutputID": sum[:], "BodySize": len(body)})
		enc.Encode(body)
		var res struct{ Err string }
		if dec.Decode(&res) == nil && res.Err == "" {
			put++
		}
	}
	enc.Encode(map[string]any{"ID": len(shared) + 1, "Command": "close"})
	in.Close()
	prog.Wait()
	fmt.Printf("rewrote %d outputs, put %d entries over %d shared\n", rewritten, put, len(shared))
}
`

// genuineTest prints what only an uncontaminated build prints.
const genuineTest = `package app

import (
	"fmt"
	"strings"
	"testing"
)

func TestGenuine(t *testing.T) {
	fmt.Println(strings.ToUpper("genuine ") + Greeting())
}
`

// cloneModule copies a workspace's module files into a fresh workspace: a
// second run of the same repository.
func cloneModule(t *testing.T, from string) string {
	t.Helper()
	ws := newWorkspace(t)
	for _, name := range []string{"go.mod", "go.sum", "app.go", "genuine_test.go"} {
		b, err := os.ReadFile(filepath.Join(from, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), b, 0o644))
	}
	return ws
}

// warmed runs the warm-up of ws in the foreground, waits for it and
// requires that it compiled.
func warmed(t *testing.T, sb *Sandbox, ws string) {
	t.Helper()
	sb.foregroundWarm = true
	w := sb.Warm(t.Context(), ws)
	require.NotNil(t, w)
	select {
	case <-w.Done():
	case <-time.After(15 * time.Minute):
		t.Fatal("the warm-up did not end within 15 minutes")
	}
	res := w.Result()
	require.NoError(t, res.Err)
	require.Equal(t, 0, res.Result.ExitCode, res.Result.Output)
}

func TestRunsNeverContaminateEachOther(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy := fileProxy(t)
	home := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	// What an older core left: one build cache for every run.
	legacy := filepath.Join(home, "cache", gocache.LegacyBuildCache)
	require.NoError(t, os.MkdirAll(filepath.Join(legacy, "00"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(legacy, "00", "planted-a"), []byte("x"), 0o644))
	newRun := func(repo string) *Sandbox {
		// The machine's build cache holds the standard library (what
		// each run compiled from nothing before: minutes beside
		// stress-ng); what the layers hold is the module's own.
		return New(warmBuilds(t, Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), CacheProg: self, Repo: repo,
			HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}}))
	}
	run := func(sb *Sandbox, tier lang.Tier, ws string, argv ...string) Result {
		t.Helper()
		r, err := sb.Verify(t.Context(), tier, argv, RunOptions{Workspace: ws, Timeout: 10 * time.Minute})
		require.NoError(t, err)
		return r
	}

	// Run 1 of acme/app: the warm-up fills the repository's shared layer.
	ws := goModule(t, proxy)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "genuine_test.go"), []byte(genuineTest), 0o644))
	sb := newRun("acme/app")
	warmed(t, sb, ws)
	shared := filepath.Join(home, "cache", "go-build-shared", gocache.RepoKey("acme/app"))
	entries, _ := filepath.Glob(filepath.Join(shared, "*", "*-a"))
	assert.NotEmpty(t, entries, "the warm-up shared what it compiled")
	assert.NoDirExists(t, legacy, "the old shared cache is gone")

	// A build-tier command shares too: a new package compiles once.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "extra.go"), []byte("package app\n\n// Extra is new.\nfunc Extra() int { return 42 }\n"), 0o644))
	r := run(sb, lang.TierBuild, ws, "go", "build", "./...")
	require.Equal(t, 0, r.ExitCode, r.Output)
	more, _ := filepath.Glob(filepath.Join(shared, "*", "*-a"))
	assert.Greater(t, len(more), len(entries), "the build shared what it compiled")

	// The same run's hostile test plants poison both ways.
	before := testkit.TreeDigest(t, shared)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "plant_test.go"), []byte(poisonCacheTest), 0o644))
	r = run(sb, lang.TierTest, ws, "go", "test", "-count=1", "-run", "TestPlant", "-v", ".")
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Regexp(t, `rewrote [1-9][0-9]* outputs, put [1-9][0-9]* entries over [1-9][0-9]* shared`, r.Output)
	assert.Equal(t, before, testkit.TreeDigest(t, shared), "a test-tier command changed the shared layer")
	planted := sha256.Sum256([]byte("an action no run has asked for yet"))
	assert.NoFileExists(t, filepath.Join(shared, fmt.Sprintf("%02x", planted[0]), fmt.Sprintf("%x-a", planted)), "a test's put reached the shared layer")

	// A later run of the same repository, and one of another, build and
	// test clean.
	for _, repo := range []string{"acme/app", "acme/other"} {
		t.Run(repo, func(t *testing.T) {
			ws2 := cloneModule(t, ws)
			sb2 := newRun(repo)
			r := run(sb2, lang.TierBuild, ws2, "go", "build", "./...")
			require.Equal(t, 0, r.ExitCode, r.Output)
			r = run(sb2, lang.TierTest, ws2, "go", "test", "-count=1", "-v", "-run", "TestGenuine", ".")
			require.Equal(t, 0, r.ExitCode, r.Output)
			assert.Contains(t, r.Output, "GENUINE hello, world")
		})
	}
	other := filepath.Join(home, "cache", "go-build-shared", gocache.RepoKey("acme/other"))
	assert.DirExists(t, other, "another repository has a layer of its own")
	assert.NoDirExists(t, legacy)
}

func TestARunLayerGoesWithItsSandbox(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	layer, err := New(Config{Home: home}).runs.Run(ws)
	require.NoError(t, err)
	require.DirExists(t, layer)
	// The Sandbox is garbage now: its cleanup removes the layer.
	deadline := time.Now().Add(30 * time.Second)
	for {
		runtime.GC()
		if _, err := os.Lstat(filepath.Dir(layer)); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the layer of a collected Sandbox was still there after 30 seconds of collections")
		}
		select {
		case <-t.Context().Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestMountAtSharesTheWarmUpsCompile is the contract's baseline: the start
// commit's checkout, mounted where the run's workspace is, finds what the
// warm-up compiled there in the repository's shared layer and compiles
// none of the module's packages again; at its own path it compiles them
// all. It sees the checkout's files, not the workspace's.
func TestMountAtSharesTheWarmUpsCompile(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	files := map[string]string{
		"go.mod":          "module example.com/mnt\n\ngo 1.21\n",
		"a/a.go":          "// Package a says which tree it is.\npackage a\n\n// Tree names the tree.\nfunc Tree() string { return \"start\" }\n",
		"a/a_test.go":     "package a\n\nimport \"testing\"\n\nfunc TestTree(t *testing.T) { t.Log(\"TREE \" + Tree()) }\n",
		"b/b.go":          "// Package b uses a.\npackage b\n\nimport \"example.com/mnt/a\"\n\n// Name is a's tree.\nfunc Name() string { return a.Tree() }\n",
		"b/b_test.go":     "package b\n\nimport \"testing\"\n\nfunc TestName(t *testing.T) {\n\tif Name() == \"\" {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n",
		"README":          "mnt\n",
		"c/nothing.txt":   "no package here\n",
		"b/testdata/x.in": "x\n",
	}
	write := func(ws string) {
		for name, body := range files {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644))
		}
	}
	home := t.TempDir()
	sb := New(warmBuilds(t, Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), CacheProg: self, Repo: "acme/mnt"}))
	ws := newWorkspace(t)
	write(ws)
	warmed(t, sb, ws)
	// The workspace moves on (the model's edit); the start commit's
	// checkout is another directory with the start's files.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a", "a.go"), []byte("package a\n\n// Tree names the tree.\nfunc Tree() string { return \"workspace\" }\n"), 0o644))
	base := newWorkspace(t)
	write(base)

	compiled := regexp.MustCompile(`(?m)/compile .*-p example\.com/mnt/`)
	check := func(opts RunOptions) Result {
		t.Helper()
		opts.Workspace, opts.NoBox, opts.OutputLimit, opts.Timeout = base, true, 4<<20, 10*time.Minute
		r, err := sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "-x", "-count=1", "-v", "./..."}, opts)
		require.NoError(t, err)
		require.Equal(t, 0, r.ExitCode, r.Output)
		assert.Contains(t, r.Output, "TREE start", "the check saw the start commit's files")
		assert.NotContains(t, r.Output, "TREE workspace")
		return r
	}
	r := check(RunOptions{MountAt: ws})
	assert.NotRegexp(t, compiled, r.Output, "mounted where the warm-up compiled, the check compiled the module again")
	assert.Contains(t, r.Output, "WORK=", "go test -x printed its work")
	r = check(RunOptions{})
	assert.Regexp(t, compiled, r.Output, "at its own path the check compiles the module's packages")

	// A mount point is an absolute, clean path, in a sandbox of its own.
	for _, opts := range []RunOptions{
		{Workspace: base, MountAt: ws},                        // a box sees its run's workspace where it is
		{Workspace: base, MountAt: "rel/dir", NoBox: true},    // not absolute
		{Workspace: base, MountAt: ws + "/../x", NoBox: true}, // not clean
		{Workspace: base, MountAt: "/", NoBox: true},
	} {
		_, err := sb.Verify(t.Context(), lang.TierTest, []string{"go", "test", "./..."}, opts)
		assert.Error(t, err, "MountAt %q NoBox %v", opts.MountAt, opts.NoBox)
	}
}

// checkMountAt runs a command on one checkout seen at another's path: it
// works there, sees the checkout's files and its .git read-only, and the
// checkout's own path shows nothing.
func checkMountAt(t *testing.T, sb *Sandbox) {
	t.Helper()
	ws, base := newWorkspace(t), newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "marker"), []byte("workspace\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "marker"), []byte("base\n"), 0o644))
	script := `pwd; cat marker; echo new > made; if touch .git/planted 2>/dev/null; then echo GIT WRITABLE; fi; if [ -e "$0/marker" ]; then echo OWN PATH SEEN; fi`
	r, err := sb.Run(t.Context(), []string{"sh", "-c", script, base}, RunOptions{Workspace: base, MountAt: ws, NoBox: true, Timeout: 2 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Equal(t, []string{ws, "base"}, strings.Fields(r.Output)[:2], r.Output)
	assert.NotContains(t, r.Output, "GIT WRITABLE")
	assert.NotContains(t, r.Output, "OWN PATH SEEN")
	b, err := os.ReadFile(filepath.Join(base, "made"))
	require.NoError(t, err, "the command wrote into the checkout")
	assert.Equal(t, "new\n", string(b))
	assert.NoFileExists(t, filepath.Join(ws, "made"), "the workspace itself was not touched")
}

func TestMountAt(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	checkMountAt(t, New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH")}))
}

func TestDockerMountAt(t *testing.T) {
	t.Parallel()
	checkMountAt(t, requireDocker(t))
}
