package mcptool

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/mcpfake"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/tools"
)

// A repository's stdio server runs in the run's box, confined like the
// model's commands: its docs tool answers, and it can read nothing of the
// user's home nor reach the network, as what its tools return says.
func TestRepositoryServerConfined(t *testing.T) {
	sandboxtest.RequireBwrap(t)
	home := t.TempDir()
	secret := filepath.Join(home, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("the user's secret"), 0o600))
	var reached atomic.Int32
	network := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		fmt.Fprint(w, "reached")
	}))
	defer network.Close()

	ws := t.TempDir()
	mcpfake.Build(t, ws, "docs-server")
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), HostHome: home, Agent: os.Args[0]})
	t.Cleanup(func() { _ = sb.Close() })
	repo := parse(t, `{"mcpServers": {"docs": {"command": "./docs-server", "env": {"GREETING": "hello"}}}}`, true)
	settings := parse(t, `{"mcpServers": {}, "core": {"unattended": ["docs"]}}`, false)
	planned, notes := Plan([]File{settings}, repo, os.Getenv)
	require.Empty(t, notes)
	byName, notes := started(t, planned, Options{Box: RunBox{Sandbox: sb, Workspace: ws}, CallTimeout: 20 * time.Second})
	require.Equal(t, []string{`MCP server "docs" (in the run's box): 7 tools`}, notes)

	var list []tools.Tool
	for _, tl := range byName {
		list = append(list, tl)
	}
	set := tools.NewSet(list...)
	env := toolEnv(t, nil) // unattended: the settings mark the server
	assert.Equal(t, mcpfake.DocsAnswer("greeting"), call(t, set, env, "mcp__docs__docs", tools.Args{"topic": "greeting"}).Output)
	assert.Equal(t, "GREETING=hello", call(t, set, env, "mcp__docs__getenv", tools.Args{"name": "GREETING"}).Output)

	read := call(t, set, env, "mcp__docs__read_file", tools.Args{"path": secret}).Output
	assert.Contains(t, read, "read failed", "the user's home is not in the box")
	assert.NotContains(t, read, "the user's secret")

	fetched := call(t, set, env, "mcp__docs__fetch", tools.Args{"url": network.URL}).Output
	assert.Contains(t, fetched, "fetch failed", "the box has no network but its own loopback")
	assert.Zero(t, reached.Load(), "the host's server was never reached")

	hang := call(t, set, env, "mcp__docs__exit", tools.Args{}).Output
	assert.Contains(t, hang, `the MCP server "docs" failed`)
}
