package session

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/internal/testkit/mcpfake"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/state"
)

// TestMCPRepositoryServerDocker: under the Docker backend (the Action's),
// a repository's stdio server runs in the run's box, a sibling container,
// joined to core through the box agent's pipe; the model's call reaches it
// and the run lands. It needs an engine and a toolchain image with a
// shell (CORE_TEST_PYTHON_IMAGE: make docker-images builds core-python:ci).
func TestMCPRepositoryServerDocker(t *testing.T) {
	img := os.Getenv("CORE_TEST_PYTHON_IMAGE")
	if img == "" {
		why := "CORE_TEST_PYTHON_IMAGE is not set (make docker-images builds core-python:ci)"
		if os.Getenv("CORE_REQUIRE_DOCKER") == "1" {
			t.Fatal("CORE_REQUIRE_DOCKER=1 but " + why)
		}
		t.Skip(why)
	}
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeDocker, Path: os.Getenv("PATH"),
		DockerHost: os.Getenv("DOCKER_HOST"), DockerImage: img, Agent: os.Args[0]})
	t.Cleanup(func() { sb.Close() })
	if p := sb.Probe(t.Context()); !p.Usable {
		t.Fatalf("CORE_TEST_PYTHON_IMAGE is set but the Docker backend is not usable: %v", p.Err())
	}
	f := newGitHubFixture(t)
	addDocsServer(t, f)
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: mcp__docs__docs\ntopic: greeting"),
		llm.ContentReply(write("hello.txt", "frobnicate(greeting)\n")),
		llm.ContentReply("tool: done\nsummary: \"Greet as the docs say\""))
	opts := f.options(t, srv)
	opts.Services.Sandbox, opts.Verification.Verify = sb, lang.TierTest
	w := userMCP(t, &opts, true)

	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Contains(t, w.String(), `mcp: MCP server "docs" (in the run's box)`)
	reqs := srv.Requests()
	require.GreaterOrEqual(t, len(reqs), 2)
	msgs := reqs[1].Messages
	assert.Contains(t, msgs[len(msgs)-1].Content, mcpfake.DocsAnswer("greeting"), "the server answered from the container")
	require.Len(t, f.g.Pulls("octo", "hello"), 1, "the run landed")
}
