package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/internal/testkit/mcpfake"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/mcptool"
	"github.com/coreagent/core/session/state"
)

// addDocsServer commits the MCP test server, executable, and a .mcp.json
// userMCP gives opts the user's MCP settings, which declare no server
// and mark the repository's docs server unattended when asked, and a
// watcher of the run's progress.
func userMCP(t *testing.T, opts *Options, unattended bool) *watcher {
	t.Helper()
	settings := `{"mcpServers": {}}`
	if unattended {
		settings = `{"mcpServers": {}, "core": {"unattended": ["docs"]}}`
	}
	user, err := mcptool.Parse("mcp.json", []byte(settings), false)
	require.NoError(t, err)
	opts.MCP.User = []mcptool.File{user}
	w := &watcher{}
	opts.Live.Progress = w
	return w
}

// that declares it to the fixture's repository, with real git.
func addDocsServer(t *testing.T, f *githubFixture) {
	t.Helper()
	work := t.TempDir()
	testkit.Git(t, "", "clone", "-q", f.repo.Dir(), work)
	require.NoError(t, os.MkdirAll(filepath.Join(work, "tools"), 0o755))
	mcpfake.Build(t, filepath.Join(work, "tools"), "docs-server")
	require.NoError(t, os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(`{"mcpServers": {"docs": {"command": "./tools/docs-server"}}}`), 0o644))
	testkit.Git(t, work, "add", ".")
	testkit.Git(t, work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "docs server")
	testkit.Git(t, work, "push", "-q", "origin", "HEAD:main")
}

// Done when (#40, its first clause): a run on a repository whose
// .mcp.json declares a stdio docs server uses its tool, confined in the
// run's box, and lands; in the text protocol and natively. Unattended, a
// server the user's settings do not mark is declined.
func TestMCPRepositoryServerUsedAndLands(t *testing.T) {
	tests := []struct {
		name       string
		native     bool
		unattended bool
		want       string
	}{
		{name: "text", unattended: true, want: mcpfake.DocsAnswer("greeting")},
		{name: "native", native: true, unattended: true, want: mcpfake.DocsAnswer("greeting")},
		{name: "not marked unattended", want: mcptool.Declined},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			sb := boxSandbox(t, home)
			f := newGitHubFixture(t)
			addDocsServer(t, f)
			call := llm.ContentReply("tool: mcp__docs__docs\ntopic: greeting")
			done := llm.ContentReply("tool: done\nsummary: \"Greet as the docs say\"")
			if tt.native {
				call = llm.ToolCallReply("mcp__docs__docs", `{"topic": "greeting"}`)
				done = llm.ToolCallReply("done", `{"summary": "Greet as the docs say"}`)
			}
			srv := llm.NewModelServer(t, call, llm.ContentReply(write("hello.txt", "frobnicate(greeting)\n")), done)
			opts := f.options(t, srv)
			opts.Services.Sandbox = sb
			opts.Verification.Verify = lang.TierTest
			if tt.native {
				opts.Inference.ToolCalls = ToolCallsNative
			}
			w := userMCP(t, &opts, tt.unattended)

			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			assert.Contains(t, w.String(), `mcp: MCP server "docs" (in the run's box): 7 tools`)

			reqs := srv.Requests()
			require.GreaterOrEqual(t, len(reqs), 2)
			if tt.native {
				var offered *json.RawMessage
				for _, tool := range reqs[0].Tools {
					if tool.Function.Name == "mcp__docs__docs" {
						raw, _ := json.Marshal(tool.Function.Parameters)
						offered = (*json.RawMessage)(&raw)
						assert.Contains(t, tool.Function.Description, "Look up the project's documentation")
					}
				}
				require.NotNil(t, offered, "the server's tool is offered natively")
				assert.Contains(t, string(*offered), `"topic"`, "with the server's own schema")
			} else {
				assert.Contains(t, reqs[0].Messages[0].Content, "mcp__docs__docs: Look up the project's documentation on a topic.\n  tool: mcp__docs__docs\n  topic: text")
			}
			msgs := reqs[1].Messages
			assert.Contains(t, msgs[len(msgs)-1].Content, tt.want)

			pulls := f.g.Pulls("octo", "hello")
			require.Len(t, pulls, 1, "the run landed")
			assert.True(t, strings.HasPrefix(pulls[0].Head, "core-session/"))
		})
	}
}
