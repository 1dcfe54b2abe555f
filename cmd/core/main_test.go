package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/egress"
)

func TestMain(m *testing.M) {
	// The box's agent starts each command's runner, and the dependency
	// step its forwarder, as `<executable> sandbox agent --reap …` and
	// `<executable> sandbox egress …` under names of their own, which
	// testscript does not map to main: this binary answers them first.
	boxagent.AgentIfAsked(os.Args)
	egress.IfAsked(os.Args)
	// The scripts wait far more than they compute (at -parallel 2 the
	// package used 73% of one CPU, in 5m51s; at 4, 117% in 4m24s).
	testkit.Parallel(4)
	testscript.Main(m, map[string]func(){
		"core": main,
	})
}

// TestScripts runs the command-line scripts under testdata/script. The
// [bwrap] condition is true where the sandbox works; with
// CORE_REQUIRE_BWRAP=1 a missing sandbox fails the run instead.
func TestScripts(t *testing.T) {
	// The scripts deliver real webhook payloads: without them, one clear
	// failure rather than one per script.
	if _, err := loadExamples(); err != nil {
		t.Fatalf("the npm fixtures are missing: run ./scripts/fixtures.sh first (%v)", err)
	}
	runScripts(t, "testdata/script", nil)
}

// runScripts runs the scripts in dir with core's script commands, the
// [bwrap] condition, and env set besides.
func runScripts(t *testing.T, dir string, env map[string]string) {
	bwrapOK := bwrapUsable(t)
	buildCache := hostBuildCache(t)
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(e *testscript.Env) error {
			// $CORE_HOME lies outside $WORK, the default workspace.
			home, err := os.MkdirTemp("", "core-home-")
			if err != nil {
				return err
			}
			e.Defer(func() { os.RemoveAll(home) })
			e.Setenv("CORE_HOME", home)
			// The user's caches, as core finds them (go env): the build
			// cache is this machine's, which confined builds only read
			// (through core's executable), so that a script's go test
			// does not compile the standard library from nothing (minutes
			// on a busy machine); the module cache is the script's own,
			// never shared with another script or the machine's.
			if buildCache != "" {
				e.Setenv("GOCACHE", buildCache)
			}
			e.Setenv("GOMODCACHE", filepath.Join(home, "user-gomod"))
			e.Setenv("XDG_CACHE_HOME", filepath.Join(home, "user-cache"))
			// No model server is discovered by accident: scripts start one.
			e.Setenv("CORE_SESSION_INFERENCE_URL", "http://127.0.0.1:9/")
			// A run that lands ends, rather than wait for comments (the
			// Action's default); the scripts about live runs set their own.
			e.Setenv("CORE_SESSION_IDLE_TIMEOUT", "0")
			for k, v := range env {
				e.Setenv(k, v)
			}
			e.Values[modelServerKey{}] = &[]*llm.ModelServer{}
			var g *ghfake.GitHub
			e.Values[githubKey{}] = &g
			var apps *ghapps.Apps
			e.Values[appsKey{}] = &apps
			e.Values[consoleKey{}] = &scriptConsole{}
			e.Values[modelGateKey{}] = modelGates{}
			return nil
		},
		Cmds: scriptCmds(),
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "bwrap":
				return bwrapOK, nil
			}
			return false, nil
		},
	})
}

// hostBuildCache is this machine's Go build cache (go env GOCACHE), or ""
// when there is none.
func hostBuildCache(t *testing.T) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	dir := strings.TrimSpace(string(out))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

func bwrapUsable(t *testing.T) bool {
	t.Helper()
	usable := false
	var cause error
	if _, err := exec.LookPath("bwrap"); err != nil {
		cause = err
	} else {
		p := sandbox.New(sandbox.Config{Home: t.TempDir(), Path: os.Getenv("PATH")}).Probe(context.Background())
		usable, cause = p.Usable, p.Err()
	}
	if !usable && os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
		t.Fatalf("CORE_REQUIRE_BWRAP=1 but the sandbox is not usable: %v", cause)
	}
	return usable
}

// runCore calls run as main would, with the environment given.
func runCore(t *testing.T, dir string, environ map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut writerBuffer
	getenv := func(k string) string { return environ[k] }
	if _, ok := environ["PATH"]; !ok {
		environ["PATH"] = os.Getenv("PATH")
	}
	if dir != "" {
		args = append([]string{args[0], args[1], "--workspace", dir}, args[2:]...)
	}
	err = run(t.Context(), args, nil, &out, &errOut, getenv)
	return out.String(), errOut.String(), err
}

func TestSandboxRunExitCode(t *testing.T) {
	if !bwrapUsable(t) {
		t.Skip("sandbox not usable here")
	}
	t.Parallel()
	ws := t.TempDir()
	env := map[string]string{"CORE_HOME": filepath.Join(t.TempDir(), "home")}
	_, _, err := runCore(t, ws, env, "sandbox", "run", "--", "sh", "-c", "exit 3")
	var code exitCode
	if !errors.As(err, &code) || code != 3 {
		t.Fatalf("want exit status 3, got %v", err)
	}
	out, stderr, err := runCore(t, ws, env, "sandbox", "run", "--", "sh", "-c", "echo hi")
	if err != nil || out != "hi\n" {
		t.Fatalf("want hi and no error, got %q, %v", out, err)
	}
	if want := "exited 0"; !strings.Contains(stderr, want) {
		t.Fatalf("stderr %q lacks %q", stderr, want)
	}
}
