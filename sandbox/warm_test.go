package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/limit"
)

// gatedProxy serves the file proxy at fileURL over HTTP, but holds every
// request until open is called; asked is closed at the first request.
func gatedProxy(t *testing.T, fileURL string) (url string, asked <-chan struct{}, open func()) {
	t.Helper()
	files := http.FileServer(http.Dir(strings.TrimPrefix(fileURL, "file://")))
	ch, gate := make(chan struct{}), make(chan struct{})
	var askOnce, openOnce sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		askOnce.Do(func() { close(ch) })
		select {
		case <-gate:
			files.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	}))
	open = func() { openOnce.Do(func() { close(gate) }) }
	t.Cleanup(func() { open(); srv.Close() })
	return srv.URL, ch, open
}

// warmModule is goModule's module with a test of its own whose source no
// other test compiles, so that its compile is in no build cache yet.
func warmModule(t *testing.T, proxy string) string {
	t.Helper()
	ws := goModule(t, proxy)
	require.NoError(t, os.Remove(filepath.Join(ws, "net_test.go")))
	token := strconv.FormatUint(rand.Uint64(), 36)
	src := fmt.Sprintf("package app\n\nimport \"testing\"\n\nfunc TestToken(t *testing.T) {\n\tif %q == \"\" {\n\t\tt.Fatal(\"no token\")\n\t}\n}\n", token)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "token_test.go"), []byte(src), 0o644))
	return ws
}

// waitAsked waits until the warm-up asks the proxy; it fails the test if
// the warm-up ends first.
func waitAsked(t *testing.T, asked <-chan struct{}, w *Warmup) {
	t.Helper()
	select {
	case <-asked:
	case <-w.Done():
		r := w.Result()
		t.Fatalf("the warm-up ended before it asked the proxy: exit %d, %v\n%s", r.ExitCode, r.Err, r.Output)
	}
}

// said is a progress writer that closes seen once it received want.
type said struct {
	want string
	seen chan struct{}

	mu   sync.Mutex
	b    strings.Builder
	once sync.Once
}

func newSaid(want string) *said { return &said{want: want, seen: make(chan struct{})} }

func (s *said) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.b.Write(p)
	hit := strings.Contains(s.b.String(), s.want)
	s.mu.Unlock()
	if hit {
		s.once.Do(func() { close(s.seen) })
	}
	return len(p), nil
}

// TestWarmFillsTheBuildCache: a go command that starts during the
// warm-up's module download waits for that download (it needs it), and its
// timeout, shorter than the wait, counts only after; the first go test
// after the warm-up compiles nothing and runs the tests for real.
func TestWarmFillsTheBuildCache(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	files := fileProxy(t)
	ws := warmModule(t, files)
	proxy, asked, open := gatedProxy(t, files)
	// A home of its own: in the shared one's module cache, the download
	// would find the module and never ask the proxy.
	sb := New(warmBuilds(t, Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"),
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}}))
	sb.foregroundWarm = true // this test waits for it to end

	w := sb.Warm(t.Context(), ws)
	require.NotNil(t, w)
	waitAsked(t, asked, w) // the warm-up is downloading, held by the proxy

	// The command's own timeout: long enough for a warm go build beside
	// a busy machine's other work, and the download is held past it.
	const timeout = 15 * time.Second
	progress := newSaid("waiting for the module download under way")
	type answer struct {
		r   Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := sb.Run(t.Context(), []string{"go", "build", "./..."}, RunOptions{Workspace: ws, Timeout: timeout, Progress: progress})
		done <- answer{r, err}
	}()
	testkit.Receive(t, progress.seen, "the command to say it waits for the download under way")
	// Hold the download past the command's timeout: were the wait counted,
	// the command would be killed.
	<-time.After(timeout + 500*time.Millisecond)
	open()

	a := testkit.Receive(t, done, "the command to run once the download ended")
	require.NoError(t, a.err)
	assert.False(t, a.r.TimedOut, a.r.Output)
	assert.Equal(t, 0, a.r.ExitCode, a.r.Output)
	assert.Greater(t, a.r.Waited, timeout, "the command waited for the download")

	res := w.Result()
	require.NoError(t, res.Err)
	require.Equal(t, 0, res.ExitCode, res.Output)
	assert.Equal(t, []string{"go", "test", "-exec=/bin/true", "./..."}, res.Argv)

	// The model's first go test: everything compiled, the tests run.
	r, err := sb.Run(t.Context(), []string{"go", "test", "-x", "./..."}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Zero(t, r.Waited, "the warm-up is over")
	assert.NotRegexp(t, `/compile -o `, r.Output, "the warm-up left something to compile")
	assert.Regexp(t, `(?m)^ok  \texample.com/app\t\d`, r.Output, "the tests ran for real, not from a cached result")
}

// TestWarmNeverDelaysANarrowCommand: while the warm-up's compile of the
// whole module is held (a package whose source is a FIFO no one writes),
// a go test of one package runs at once, to its end, and the warm-up runs
// on, in the background: every process of it at the low priority.
func TestWarmNeverDelaysANarrowCommand(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	ws := newWorkspace(t)
	for name, body := range map[string]string{
		"go.mod":          "module example.com/app\n\ngo 1.21\n",
		"one/one.go":      "package one\n\n// One is one.\nfunc One() int { return 1 }\n",
		"one/one_test.go": "package one\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal(\"not one\")\n\t}\n}\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "held"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "held", "held.go"), 0o644))
	sb := New(warmBuilds(t, Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := sb.Warm(ctx, ws)
	require.NotNil(t, w)

	// The warm-up's compile is under way once its go runs; it then waits
	// on the FIFO. It runs in the run's box, as production's do, under a
	// runner of its own: the runner and all under it are the warm-up's.
	// The box's agent, which starts the commands someone waits for, is
	// not lowered.
	var procs []int
	require.Eventually(t, func() bool {
		procs = nil
		for _, pid := range withArg(ws) {
			procs = append(procs, descendants(pid)...)
		}
		return slices.ContainsFunc(procs, func(p int) bool { return strings.HasPrefix(cmdline(p), "go test -exec=/bin/true") })
	}, testkit.Patience, 20*time.Millisecond, "the warm-up's go test to start")
	runner := slices.IndexFunc(procs, func(p int) bool {
		return strings.HasPrefix(cmdline(p), "core-box-runner ") && strings.Contains(cmdline(p), "go test -exec=/bin/true")
	})
	require.GreaterOrEqual(t, runner, 0, "the warm-up's runner among %v", procs)
	warm := descendants(procs[runner])
	require.Greater(t, len(warm), 1, "the warm-up's go under its runner")
	for _, p := range warm {
		if cmdline(p) == cmdline(procs[runner]) {
			// The runner forked and has not yet become what it runs
			// (nice-nopipe lowers itself, then the go command): not the
			// warm-up's work yet. Seen once beside stress-ng in CI.
			continue
		}
		if n, ok := niceness(p); ok {
			assert.Equal(t, limit.BackgroundNice, n, "a process of the warm-up (%s) runs at a higher priority", cmdline(p))
		}
	}
	agent := slices.IndexFunc(procs, func(p int) bool { return strings.Contains(cmdline(p), "sandbox agent --socket") })
	require.GreaterOrEqual(t, agent, 0, "the box's agent among %v", procs)
	n, ok := niceness(procs[agent])
	require.True(t, ok)
	assert.Zero(t, n, "the box's agent was lowered with the warm-up")

	r, err := sb.Run(t.Context(), []string{"go", "test", "-count=1", "./one/"}, RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Zero(t, r.Waited, "nothing to wait for: no module to download")
	assert.Regexp(t, `(?m)^ok  \texample.com/app/one\t\d`, r.Output)
	select {
	case <-w.Done():
		res := w.Result()
		t.Fatalf("the held warm-up ended first: exit %d, %v\n%s", res.ExitCode, res.Err, res.Output)
	default:
	}
	cancel()
	testkit.Receive(t, w.Done(), "the cancelled warm-up to end")
}

// TestBackgroundCommandsYield: a background command runs at the least
// priority, and the others at the caller's.
func TestBackgroundCommandsYield(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	ws := newWorkspace(t)
	sb := New(Config{Home: sharedHome, Mode: ModeBwrap, Path: os.Getenv("PATH")})
	own, ok := niceness(os.Getpid())
	require.True(t, ok)
	for _, tt := range []struct {
		name       string
		background bool
		want       int
	}{
		{name: "background", background: true, want: limit.BackgroundNice},
		{name: "foreground", want: own},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := sb.Run(t.Context(), []string{"nice"}, RunOptions{Workspace: ws, Background: tt.background})
			require.NoError(t, err)
			require.Equal(t, 0, r.ExitCode, r.Output)
			assert.Equal(t, strconv.Itoa(tt.want), strings.TrimSpace(r.Output))
		})
	}
}

// cmdline is a process's arguments, joined by blanks; "" when it is gone.
func cmdline(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return ""
	}
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// niceness is field 19 of /proc/<pid>/stat; false when the process is gone.
func niceness(pid int) (int, bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 17 {
		return 0, false
	}
	n, err := strconv.Atoi(fields[16])
	return n, err == nil
}

// descendants returns pid and every process under it.
func descendants(pid int) []int {
	return append([]int{pid}, boxagent.TreeUnder(pid, boxagent.ProcParents())...)
}

// withArg returns the pids of processes with an argument that contains s.
func withArg(s string) []int {
	return testkit.Processes(func(cmdline string) bool { return strings.Contains(cmdline, s) })
}

func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		if syscall.Kill(p, 0) == nil {
			out = append(out, p)
		}
	}
	return out
}

// TestWarmStopsWithItsContext: cancelling the context kills the warm-up's
// processes, all of them, and ends its wait.
func TestWarmStopsWithItsContext(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy, asked := hangingProxy(t)
	ws := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/app\n\ngo 1.21\n\nrequire example.com/greet v1.0.0\n"), 0o644))
	home := t.TempDir()
	sb := New(Config{Home: home, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := sb.Warm(ctx, ws)
	require.NotNil(t, w)
	waitAsked(t, asked, w)

	// The download's bwrap binds its scratch directory under home.
	var procs []int
	for _, pid := range withArg(filepath.Join(home, "tmp", "core-mod-")) {
		procs = append(procs, descendants(pid)...)
	}
	require.NotEmpty(t, procs, "no process of the warm-up found")
	cancel()
	testkit.Receive(t, w.Done(), "the cancelled warm-up to end")
	assert.ErrorIs(t, w.Result().Err, context.Canceled)
	assert.Eventually(t, func() bool { return len(alive(procs)) == 0 }, testkit.Patience, 20*time.Millisecond,
		"a process of the cancelled warm-up is still running")
}

// TestWarmOnceAtATime: Warm calls at once for one workspace start one
// warm-up; a go command waiting for its download stops with its own
// context.
func TestWarmOnceAtATime(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	proxy, asked := hangingProxy(t)
	ws := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/app\n\ngo 1.21\n\nrequire example.com/greet v1.0.0\n"), 0o644))
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	got := make([]*Warmup, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := ws
			if i%2 == 1 {
				dir = ws + "/." // the same workspace, named another way
			}
			got[i] = sb.Warm(ctx, dir)
		}()
	}
	wg.Wait()
	require.NotNil(t, got[0])
	for _, w := range got {
		assert.Same(t, got[0], w)
	}
	waitAsked(t, asked, got[0])

	// A go command needs the modules: it waits for the download under
	// way, and stops with its own context.
	short, stop := context.WithCancel(t.Context())
	progress := newSaid("waiting for the module download under way")
	go func() { <-progress.seen; stop() }()
	r, err := sb.Verify(short, lang.TierBuild, []string{"go", "vet", "./..."}, RunOptions{Workspace: ws, Progress: progress})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Positive(t, r.Waited)
	select {
	case <-got[0].Done():
		t.Fatal("the warm-up ended with a command that waited for its download")
	default:
	}
	cancel()
	testkit.Receive(t, got[0].Done(), "the cancelled warm-up to end")
}

func TestWarmNothingToDo(t *testing.T) {
	t.Parallel()
	t.Run("not a module", func(t *testing.T) {
		requireBwrap(t)
		t.Parallel()
		ws := newWorkspace(t)
		sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH")})
		assert.Nil(t, sb.Warm(t.Context(), ws))
		r, err := sb.Run(t.Context(), []string{"go", "version"}, RunOptions{Workspace: ws})
		require.NoError(t, err)
		assert.Equal(t, 0, r.ExitCode, r.Output)
		assert.Zero(t, r.Waited)
	})
	t.Run("sandbox off", func(t *testing.T) {
		t.Parallel()
		ws := newWorkspace(t)
		require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/app\n\ngo 1.21\n"), 0o644))
		sb := New(Config{Home: t.TempDir(), Mode: ModeOff, Path: os.Getenv("PATH")})
		assert.Nil(t, sb.Warm(t.Context(), ws))
	})
	t.Run("no workspace", func(t *testing.T) {
		t.Parallel()
		sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH")})
		assert.Nil(t, sb.Warm(t.Context(), filepath.Join(t.TempDir(), "gone")))
	})
}

// TestWarmTimeout: a warm-up that runs past its own timeout is killed; it
// is no error, and a go command meanwhile runs without waiting for it. (A
// FIFO named like a Go file holds the compile for good.)
func TestWarmTimeout(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	ws := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/app\n\ngo 1.21\n"), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "blocked.go"), 0o644))
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), WarmTimeout: 2 * time.Second, HostEnv: []string{"GOPROXY=off"}})
	w := sb.Warm(t.Context(), ws)
	require.NotNil(t, w)
	r, err := sb.Run(t.Context(), []string{"go", "version"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, 0, r.ExitCode, r.Output)
	res := w.Result()
	assert.NoError(t, res.Err)
	assert.True(t, res.TimedOut, res.Output)
	assert.Contains(t, res.Output, "ran past its 2s timeout")
}

// TestWarmGoWork: a go.work without a module at the root is warmed module
// by module (./... alone matches none of its packages).
func TestWarmGoWork(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"go.work": nil, "app/go.mod": nil, "app/go.sum": nil, "lib/x/go.mod": nil}
	assert.Equal(t, []string{"go", "test", "-exec=/bin/true", "./app/...", "./lib/x/..."}, warmArgv(moduleDirs(files)))
	assert.Equal(t, []string{"go", "test", "-exec=/bin/true", "./..."}, warmArgv(moduleDirs(map[string][]byte{"go.mod": nil, "go.sum": nil})))

	requireBwrap(t)
	proxy := fileProxy(t)
	mod := goModule(t, proxy)
	ws := newWorkspace(t)
	require.NoError(t, os.Rename(mod, filepath.Join(ws, "app")))
	require.NoError(t, os.RemoveAll(filepath.Join(ws, "app", ".git")))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.work"), []byte("go 1.21\n\nuse ./app\n"), 0o644))
	sb := New(warmBuilds(t, Config{Home: sharedHome, Mode: ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}}))
	sb.foregroundWarm = true // this test waits for it to end
	w := sb.Warm(t.Context(), ws)
	require.NotNil(t, w)
	res := w.Result()
	require.NoError(t, res.Err)
	assert.Equal(t, 0, res.ExitCode, res.Output)
	assert.Contains(t, res.Output, "example.com/app")
}

func TestWarmTimeoutFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		value   string
		want    time.Duration
		wantErr string
	}{
		{name: "unset", value: ""},
		{name: "set", value: "45m", want: 45 * time.Minute},
		{name: "not a duration", value: "long", wantErr: `CORE_SANDBOX_WARM_TIMEOUT must be a duration such as 20m, got "long"`},
		{name: "zero", value: "0s", wantErr: "CORE_SANDBOX_WARM_TIMEOUT must be a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := ConfigFromEnv("/state", func(k string) string {
				if k == "CORE_SANDBOX_WARM_TIMEOUT" {
					return tt.value
				}
				return ""
			})
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.WarmTimeout)
		})
	}
}

// TestWarmStartsTheBox: the warm-up starts the workspace's box once the
// modules are downloaded, beside its compile, so that the model's first
// command finds it up (it waited for the box's start before); that command
// runs in it, and sees the modules downloaded.
func TestWarmStartsTheBox(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	files := fileProxy(t)
	ws := goModule(t, files)
	// With a shared layer to fill, the warm-up's compile runs in a
	// sandbox of its own (gocache/layers.go), not in the box.
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0], CacheProg: os.Args[0],
		Repo: "acme/app", HostEnv: []string{"GOPROXY=" + files, "GOSUMDB=off"}})
	t.Cleanup(func() { sb.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := sb.Warm(ctx, ws)
	require.NotNil(t, w)

	var inst *boxInst
	require.Eventually(t, func() bool {
		sb.mu.Lock()
		b := sb.boxes[ws]
		sb.mu.Unlock()
		if b == nil {
			return false
		}
		b.mu.Lock()
		inst = b.inst
		b.mu.Unlock()
		return inst != nil && inst.alive()
	}, testkit.Patience, 20*time.Millisecond, "the warm-up to start the workspace's box")

	r, err := sb.Run(t.Context(), []string{"go", "list", "-m", "all"}, RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Equal(t, "example.com/app\nexample.com/greet v1.0.0\n", r.Output)
	sb.mu.Lock()
	b := sb.boxes[ws]
	sb.mu.Unlock()
	b.mu.Lock()
	assert.Same(t, inst, b.inst, "the command started another box")
	b.mu.Unlock()

	cancel()
	testkit.Receive(t, w.Done(), "the cancelled warm-up to end")
}
