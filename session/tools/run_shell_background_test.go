package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boxedSandbox is a real sandbox whose boxes run this test binary as
// their agent; it skips without bwrap unless CORE_REQUIRE_BWRAP=1.
func boxedSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), Agent: os.Args[0]})
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
	env.Runner, env.Tier = sb, sandbox.TierTest
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
	env.Runner, env.Tier = sb, sandbox.TierBuild
	approver := &recordingApprover{answer: false}
	env.Approver = approver
	r := runTool(t, env, "run_shell", Args{"command": "sleep 1000", "background": true})
	assert.Equal(t, Declined, r.Output)
	assert.Equal(t, []string{"run_shell (background, confined in the box): sleep 1000"}, approver.recorded())
	r = runTool(t, env, "run_shell", Args{"command": "echo hi", "box": "yes"})
	assert.Equal(t, Declined, r.Output)
}
