package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boxedSandbox is a real sandbox whose boxes run this test binary as
// their agent; it skips without bwrap unless CORE_REQUIRE_BWRAP=1.
func boxedSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	return limitedSandbox(t, limit.Limits{})
}

// limitedSandbox is boxedSandbox with limits (zero fields: the defaults).
func limitedSandbox(t *testing.T, limits limit.Limits) *sandbox.Sandbox {
	t.Helper()
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0], Limits: limits})
	t.Cleanup(func() { sb.Close() })
	if p := sb.Probe(t.Context()); !p.Usable {
		if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("CORE_REQUIRE_BWRAP=1 but the sandbox is not usable: %v", p.Err())
		}
		t.Skipf("sandbox not usable here (set CORE_REQUIRE_BWRAP=1 to make this a failure): %v", p.Err())
	}
	return sb
}

func TestRunShellBackgroundServer(t *testing.T) {
	t.Parallel()
	sb := boxedSandbox(t)
	env := newEnv(t, map[string]string{"index.txt": "hello from the workspace\n"})
	env.Runner, env.Tier = sb, lang.TierTest
	port := 20000 + rand.IntN(20000)
	r := runTool(t, env, "run_shell", Args{"command": fmt.Sprintf("python3 -m http.server %d --bind 127.0.0.1", port), "background": true})
	require.Contains(t, r.Output, "started p1 in the background")
	assert.Contains(t, r.Output, "still running")

	// A later command in the box reaches it by name; it retries a bounded
	// while for the server to listen, and says so when it never did.
	fetch := fmt.Sprintf(`for i in $(seq 600); do python3 -c 'import urllib.request,sys; sys.stdout.write(urllib.request.urlopen("http://localhost:%d/index.txt", timeout=5).read().decode())' 2>/dev/null && exit 0; sleep 0.1; done; echo never listened; exit 1`, port)
	r = runTool(t, env, "run_shell", Args{"command": fetch, "box": true})
	assert.Contains(t, r.Output, "hello from the workspace\nexit status 0 (sandboxed)")

	// The server logs the request as it answers; its output reaches the
	// box's buffer a moment later, which on a loaded machine may be after
	// the fetch ended: read it until the line is there, a bounded while.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		r = runTool(t, env, "run_shell", Args{"output": "p1"})
		if strings.Contains(r.Output, "GET /index.txt") || time.Now().After(deadline) {
			break
		}
	}
	assert.Contains(t, r.Output, "GET /index.txt")
	assert.Contains(t, r.Output, "still running")
	r = runTool(t, env, "run_shell", Args{"stop": "p1"})
	assert.Contains(t, r.Output, "stopped p1")
	assert.Contains(t, r.Output, "ended, exit status")
	r = runTool(t, env, "run_shell", Args{"output": "p9"})
	assert.Contains(t, r.Output, `no background command "p9" (the ids are p1)`)
}

func TestRunShellBackgroundNeedsApprovalBelowTheTestTier(t *testing.T) {
	t.Parallel()
	sb := boxedSandbox(t)
	env := newEnv(t, nil)
	env.Runner, env.Tier = sb, lang.TierBuild
	approver := &recordingApprover{answer: false}
	env.Approver = approver
	r := runTool(t, env, "run_shell", Args{"command": "sleep 1000", "background": true})
	assert.Equal(t, Declined, r.Output)
	assert.Equal(t, []string{"run_shell (background, confined in the box): sleep 1000"}, approver.recorded())
	r = runTool(t, env, "run_shell", Args{"command": "echo hi", "box": "yes"})
	assert.Equal(t, Declined, r.Output)
}

// The model sees its background commands in every run_shell reply, and
// that core ends them at done.
func TestRunShellListsBackgroundProcesses(t *testing.T) {
	t.Parallel()
	sb := boxedSandbox(t)
	env := newEnv(t, nil)
	env.Runner, env.Tier = sb, lang.TierTest
	assert.Contains(t, runShell{}.Doc(), "They are ended at done")

	r := runTool(t, env, "run_shell", Args{"command": "go version"})
	assert.NotContains(t, r.Output, "Background commands", "a reply lists none before there is one")
	r = runTool(t, env, "run_shell", Args{"command": "sleep 1000", "background": true})
	require.Contains(t, r.Output, "started p1 in the background")
	r = runTool(t, env, "run_shell", Args{"command": "exit 3", "background": true})
	require.Contains(t, r.Output, "started p2 in the background")
	select {
	case <-sb.BackgroundProcesses(env.Workspace.Root())[1].Done():
	case <-time.After(testkit.Patience):
		t.Fatalf("p2 (exit 3) still runs after %s", testkit.Patience)
	}

	r = runTool(t, env, "run_shell", Args{"command": "echo foreground", "box": true})
	assert.Contains(t, r.Output, "foreground\nexit status 0")
	assert.Contains(t, r.Output, "Background commands in the box (core ends them all at done;")
	assert.Contains(t, r.Output, "\n  p1 running: sleep 1000\n  p2 ended, exit status 3: exit 3")

	r = runTool(t, env, "run_shell", Args{"stop": "p1"})
	assert.Contains(t, r.Output, "  p1 ended, exit status -1: sleep 1000")
}

// A background command past a limit is stopped, and the model is told
// which limit.
func TestRunShellBackgroundLimit(t *testing.T) {
	t.Parallel()
	sb := limitedSandbox(t, limit.Limits{WorkspaceGrowth: 8 << 20})
	env := newEnv(t, nil)
	env.Runner, env.Tier = sb, lang.TierTest
	r := runTool(t, env, "run_shell", Args{"command": "for i in $(seq 64); do head -c 1M /dev/zero > fill$i; sleep 0.02; done; sleep 1000", "background": true})
	require.Contains(t, r.Output, "started p1 in the background")
	select {
	case <-sb.BackgroundProcesses(env.Workspace.Root())[0].Done():
	case <-time.After(testkit.Patience):
		t.Fatalf("the workspace filler still runs after %s", testkit.Patience)
	}
	r = runTool(t, env, "run_shell", Args{"output": "p1"})
	assert.Contains(t, r.Output, "stopped by core: it broke the sandbox's workspace growth limit")
	assert.Contains(t, r.Output, "CORE_SANDBOX_WORKSPACE_GROWTH=16M")
	assert.Contains(t, r.Output, "  p1 stopped by core at its workspace growth limit: for i in")
}
