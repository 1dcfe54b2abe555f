package session

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	testbrowser "github.com/coreagent/core/internal/testkit/browser"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/state"
)

// TestBrowserSessionDocker is an unattended run with the browser under the
// Docker backend: the dev server and Chromium run in the run's box, a
// sibling container, and the browser reaches the server on the
// container's loopback. It needs an engine and an image with python3 and
// Chromium at the host's Chromium path (CORE_TEST_BROWSER_IMAGE, e.g.
// docker/toolchain.Dockerfile with PACKAGES="python3 chromium").
func TestBrowserSessionDocker(t *testing.T) {
	img := os.Getenv("CORE_TEST_BROWSER_IMAGE")
	if img == "" {
		why := `CORE_TEST_BROWSER_IMAGE is not set (an image with python3 and chromium: docker/toolchain.Dockerfile with PACKAGES="python3 chromium"; make docker-images builds core-browser:ci)`
		if os.Getenv("CORE_REQUIRE_DOCKER") == "1" {
			t.Fatal("CORE_REQUIRE_DOCKER=1 but " + why)
		}
		t.Skip(why)
	}
	exe := testbrowser.Exec(t)
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeDocker, Path: os.Getenv("PATH"),
		DockerHost: os.Getenv("DOCKER_HOST"), DockerImage: img, ToolchainImages: map[string]string{"python": img}, Agent: os.Args[0]})
	t.Cleanup(func() { sb.Close() })
	if p := sb.Probe(t.Context()); !p.Usable {
		t.Fatalf("CORE_TEST_BROWSER_IMAGE is set but the Docker backend is not usable: %v", p.Err())
	}
	replies := []llm.Reply{
		llm.ContentReply("tool: browser_navigate\nurl: " + siteURL + "/"),
		llm.ContentReply("tool: browser_type\nselector: \"#name\"\ntext: Ada"),
		llm.ContentReply("tool: browser_click\nselector: \"#go\""),
		llm.ContentReply("tool: browser_read\nselector: \"#out\""),
		llm.ContentReply("tool: browser_navigate\nurl: " + siteURL + "/away"),
		llm.ContentReply("tool: done\nsummary: checked the page"),
	}
	srv := llm.NewModelServer(t, append(startServer(), replies...)...)
	opts := testOptions(t, srv, greeterRepo(t))
	opts.Services.Sandbox, opts.Verification.Verify = sb, lang.TierTest
	marker := fmt.Sprintf("CORE_BROWSER_TEST=docker%d", time.Now().UnixNano())
	opts.Browser = BrowserOptions{On: true, Exec: exe, Env: []string{marker}}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	obs := observations(srv)
	require.Len(t, obs, 2+len(replies))
	require.Contains(t, obs[1], "started p1 in the background: cd site && python3 server.py 8000")
	require.Contains(t, obs[2], "up\nexit status 0")
	obs = obs[2:]
	assert.Contains(t, obs[1], "Result of browser_navigate:\nloaded "+siteURL+`/ (title "Greeter"), HTTP status 200`)
	assert.Contains(t, obs[2], "typed 3 characters into #name")
	assert.Contains(t, obs[3], "clicked #go")
	assert.Contains(t, obs[4], "\nHello, Ada!")
	assert.Contains(t, obs[5], "core blocked 1 request(s) that would have left this machine")
	assert.Empty(t, testbrowser.Survivors(marker), "no browser process outlives the run")
}
