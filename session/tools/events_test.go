package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/live"
)

// TestEventRunner runs commands for real through the sandbox (off: on
// the host) as the tools' runner: each is told as a command event with
// its exit, backend and duration, the argv as the tools show it; one the
// tier refuses is told with why and no exit; the output is not in it.
func TestEventRunner(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(t.TempDir(), live.EventsFile)
	log, err := live.OpenEvents(path, nil, time.Now)
	require.NoError(t, err)
	sb := sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeOff, Path: os.Getenv("PATH")})
	turn := 4
	r := NewEventRunner(sb, log, time.Now, func() int { return turn })
	var _ Boxer = r // run_shell still finds the box
	ws := t.TempDir()
	res, err := r.RunHost(t.Context(), []string{"bash", "-c", "echo file-content; exit 3"}, sandbox.RunOptions{Workspace: ws, Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, 3, res.ExitCode)
	_, err = r.Verify(t.Context(), lang.TierBuild, []string{"go", "test", "./..."}, sandbox.RunOptions{Workspace: ws, Timeout: time.Minute})
	require.Error(t, err, "the build tier does not run tests")
	log.Close()

	var got []live.Event
	require.NoError(t, live.Follow(t.Context(), "s", mustOpen(t, path), func() bool { return false }, func(e live.Event) error {
		got = append(got, e)
		return nil
	}))
	require.Len(t, got, 2)
	host := got[0]
	assert.Equal(t, live.EventCommand, host.Kind)
	assert.Equal(t, "echo file-content; exit 3", host.Target, "a shell command as it was written")
	assert.Equal(t, 4, host.Turn)
	require.NotNil(t, host.Exit)
	assert.Equal(t, 3, *host.Exit)
	assert.Equal(t, "host", host.Backend)
	assert.Positive(t, host.DurationMS)
	assert.Empty(t, host.Text)
	refused := got[1]
	assert.Equal(t, "go test ./...", refused.Target)
	assert.Nil(t, refused.Exit, "it never ran")
	assert.NotEmpty(t, refused.Text, "why")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(raw), "file-content"), "the command's text, never its output")
}

// readLog is every event of the log at path so far.
func readLog(t *testing.T, path string) []live.Event {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var got []live.Event
	require.NoError(t, live.Follow(t.Context(), "s", f, func() bool { return false }, func(e live.Event) error {
		got = append(got, e)
		return nil
	}))
	return got
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// TestEventRunnerTellsBoxCommands: run_shell's box: true command runs in
// the box, not through Verify, and is told as a command event all the
// same, with its exit and the box's backend.
func TestEventRunnerTellsBoxCommands(t *testing.T) {
	t.Parallel()
	sb := boxedSandbox(t)
	path := filepath.Join(t.TempDir(), live.EventsFile)
	log, err := live.OpenEvents(path, nil, time.Now)
	require.NoError(t, err)
	env := newEnv(t, nil)
	env.Runner, env.Tier = NewEventRunner(sb, log, time.Now, func() int { return 2 }), lang.TierTest
	r := runTool(t, env, "run_shell", Args{"command": "echo in the box; exit 5", "box": true})
	require.Contains(t, r.Output, "exit status 5 (sandboxed)")
	log.Close()

	var got []live.Event
	require.NoError(t, live.Follow(t.Context(), "s", mustOpen(t, path), func() bool { return false }, func(e live.Event) error {
		got = append(got, e)
		return nil
	}))
	require.Len(t, got, 1)
	assert.Equal(t, live.EventCommand, got[0].Kind)
	assert.Equal(t, "echo in the box; exit 5", got[0].Target)
	assert.Equal(t, 2, got[0].Turn)
	require.NotNil(t, got[0].Exit)
	assert.Equal(t, 5, *got[0].Exit)
	assert.Equal(t, "bwrap", got[0].Backend)
}

// greetModule is a GOPROXY directory serving example.com/greet and a
// module that needs it, its go.sum made against it.
func greetModule(t *testing.T) (proxy, ws string) {
	t.Helper()
	proxy, ws = testkit.GoProxy(t), t.TempDir()
	testkit.WriteFiles(t, ws, map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.21\n\nrequire example.com/greet v1.0.0\n",
		"app.go": "package app\n\nimport \"example.com/greet\"\n\nvar Greeting = greet.Hello(\"world\")\n",
	})
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = ws
	tidy.Env = append(os.Environ(), "GOPROXY="+proxy, "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE="+t.TempDir(), "GOTOOLCHAIN=local")
	out, err := tidy.CombinedOutput()
	require.NoError(t, err, string(out))
	return proxy, ws
}

// proxiedRunner is a bwrap sandbox whose Go downloads from proxy, and
// an event log at path.
func proxiedRunner(t *testing.T, proxy string) (*sandbox.Sandbox, *live.EventLog, string) {
	t.Helper()
	sandboxtest.RequireBwrap(t)
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0],
		HostEnv: []string{"GOPROXY=" + proxy, "GOSUMDB=off"}})
	t.Cleanup(func() { sb.Close() })
	path := filepath.Join(t.TempDir(), live.EventsFile)
	log, err := live.OpenEvents(path, nil, time.Now)
	require.NoError(t, err)
	return sb, log, path
}

// TestEventRunnerTellsGosDownload: Go's dependency step is the module
// download core runs before a go command: told as a deps event (ok, with
// its duration) the first time, not again once the modules are there;
// a download that fails is told failed, with why, and the command, which
// did not run, has no exit.
func TestEventRunnerTellsGosDownload(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"fetched", "zip missing", "go.mod a link"} {
		broken := name == "zip missing"
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			proxy, ws := greetModule(t)
			if broken {
				require.NoError(t, os.Remove(filepath.Join(strings.TrimPrefix(proxy, "file://"), testkit.GoProxyZip)))
			}
			refused := name == "go.mod a link"
			if refused {
				// A planted link: core reads no module file through one.
				require.NoError(t, os.Rename(filepath.Join(ws, "go.mod"), filepath.Join(ws, "real.mod")))
				require.NoError(t, os.Symlink("real.mod", filepath.Join(ws, "go.mod")))
			}
			sb, log, path := proxiedRunner(t, proxy)
			r := NewEventRunner(sb, log, time.Now, func() int { return 2 })
			argv := []string{"go", "list", "-m", "all"}
			first, err := r.Verify(t.Context(), lang.TierBuild, argv, sandbox.RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
			require.NoError(t, err)
			_, err = r.Verify(t.Context(), lang.TierBuild, argv, sandbox.RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
			require.NoError(t, err)
			log.Close()
			got := readLog(t, path)
			var deps, cmds []live.Event
			for _, e := range got {
				switch e.Kind {
				case live.EventDeps:
					deps = append(deps, e)
				case live.EventCommand:
					cmds = append(cmds, e)
				}
			}
			require.Len(t, cmds, 2, "%+v", got)
			require.Len(t, deps, 1, "told once: %+v", got)
			assert.Equal(t, 2, deps[0].Turn)
			assert.Equal(t, live.EventDeps, got[0].Kind, "before its command")
			if refused {
				assert.True(t, first.Setup, first.Output)
				assert.Equal(t, "skipped", deps[0].Verdict)
				assert.Contains(t, deps[0].Text, "core did not download the module dependencies")
				assert.Zero(t, deps[0].DurationMS, "no download ran")
				return
			}
			if !broken {
				require.Equal(t, 0, first.ExitCode, first.Output)
				assert.Equal(t, "ok", deps[0].Verdict, deps[0].Text)
				assert.Empty(t, deps[0].Text)
				assert.Positive(t, deps[0].DurationMS, "the download took its time")
				require.NotNil(t, cmds[0].Exit)
				assert.Equal(t, 0, *cmds[0].Exit)
				return
			}
			assert.True(t, first.Setup, first.Output)
			assert.Equal(t, "failed", deps[0].Verdict)
			assert.Contains(t, deps[0].Text, "go mod download (run by core confined, with the network, so that Go works offline in the sandbox) failed")
			assert.Nil(t, cmds[0].Exit, "the command did not run")
			assert.Equal(t, "core's preparation for it failed; it did not run", cmds[0].Text)
		})
	}
}

// TestEventRunnerTellsTheWarmUp: the warm-up's compile is told once it
// ends, as a command in no turn, with where it ran and its exit; asked
// again for the same warm-up, it is not told twice.
func TestEventRunnerTellsTheWarmUp(t *testing.T) {
	t.Parallel()
	sandboxtest.RequireBwrap(t)
	ws := t.TempDir()
	testkit.WriteFiles(t, ws, map[string]string{
		"go.mod":      "module example.com/w\n\ngo 1.21\n",
		"w.go":        "package w\n\n// Two is two.\nfunc Two() int { return 2 }\n",
		"w_test.go":   "package w\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(\"two\")\n\t}\n}\n",
		"sub/x.go":    "package sub\n",
		"sub/x.notgo": "x\n",
	})
	sb := sandbox.New(sandboxtest.WarmBuilds(t, sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0]}))
	t.Cleanup(func() { sb.Close() })
	path := filepath.Join(t.TempDir(), live.EventsFile)
	log, err := live.OpenEvents(path, nil, time.Now)
	require.NoError(t, err)
	r := NewEventRunner(sb, log, time.Now, func() int { return 3 })
	w := r.Warm(t.Context(), ws)
	require.NotNil(t, w)
	require.Same(t, w, r.Warm(t.Context(), ws), "the same warm-up while it runs")
	res := w.Result()
	require.NoError(t, res.Err)
	read := func() []live.Event { return readLog(t, path) }
	require.Eventually(t, func() bool { return len(read()) > 0 }, testkit.Patience, 20*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // a second event, were there one, has had its time
	got := read()
	require.Len(t, got, 1, "told once: %+v", got)
	e := got[0]
	assert.Equal(t, live.EventCommand, e.Kind)
	assert.Zero(t, e.Turn, "in no turn")
	assert.Equal(t, WarmText, e.Text)
	assert.Equal(t, "go test -exec=/bin/true ./...", e.Target)
	assert.Equal(t, "bwrap", e.Backend)
	require.NotNil(t, e.Exit, "%+v", res)
	assert.Equal(t, res.ExitCode, *e.Exit)
	assert.Equal(t, live.Took(res.Duration), e.DurationMS)
}

// TestEventRunnerTellsAFailedWarmUpDownload: a warm-up whose module
// download failed is told as a failed deps event and a command that did
// not run.
func TestEventRunnerTellsAFailedWarmUpDownload(t *testing.T) {
	t.Parallel()
	proxy, ws := greetModule(t)
	require.NoError(t, os.Remove(filepath.Join(strings.TrimPrefix(proxy, "file://"), testkit.GoProxyZip)))
	sb, log, path := proxiedRunner(t, proxy)
	w := NewEventRunner(sb, log, time.Now, func() int { return 1 }).Warm(t.Context(), ws)
	require.NotNil(t, w)
	require.True(t, w.Result().Setup, w.Result().Output)
	var got []live.Event
	require.Eventually(t, func() bool {
		got = readLog(t, path)
		return len(got) >= 2
	}, testkit.Patience, 20*time.Millisecond)
	require.Len(t, got, 2)
	assert.Equal(t, live.EventDeps, got[0].Kind)
	assert.Equal(t, "failed", got[0].Verdict)
	assert.Contains(t, got[0].Text, WarmText+": go mod download (run by core confined")
	assert.Equal(t, live.EventCommand, got[1].Kind)
	assert.Nil(t, got[1].Exit)
	assert.Equal(t, WarmText+": core's preparation for it failed; it did not run", got[1].Text)
}

// TestEventRunnerTellsAWarmUpDownload: the module download the warm-up
// ran, before any command waited for one, is told ok with its duration
// and in no turn, before the warm-up's command; a go command after it
// finds the modules there and has no dependency step to tell.
func TestEventRunnerTellsAWarmUpDownload(t *testing.T) {
	t.Parallel()
	proxy, ws := greetModule(t)
	sb, log, path := proxiedRunner(t, proxy)
	r := NewEventRunner(sb, log, time.Now, func() int { return 1 })
	w := r.Warm(t.Context(), ws)
	require.NotNil(t, w)
	res := w.Result()
	require.NoError(t, res.Err)
	require.Positive(t, res.Download, "the warm-up ran the download")
	var got []live.Event
	require.Eventually(t, func() bool {
		got = readLog(t, path)
		return len(got) >= 2
	}, testkit.Patience, 20*time.Millisecond)
	_, err := r.Verify(t.Context(), lang.TierBuild, []string{"go", "list", "-m", "all"}, sandbox.RunOptions{Workspace: ws, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	log.Close()
	got = readLog(t, path)
	require.Len(t, got, 3, "%+v", got)
	assert.Equal(t, live.EventDeps, got[0].Kind)
	assert.Equal(t, "ok", got[0].Verdict)
	assert.Zero(t, got[0].Turn, "in no turn")
	assert.Equal(t, WarmText, got[0].Text)
	assert.Equal(t, live.Took(res.Download), got[0].DurationMS)
	assert.Equal(t, live.EventCommand, got[1].Kind)
	assert.Equal(t, WarmText, got[1].Text)
	assert.Equal(t, live.EventCommand, got[2].Kind, "the command's, with no dependency step before it")
	assert.Equal(t, 1, got[2].Turn)
}
