package setup

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The user's settings file, then the Action's mcp_config: both kept, in
// that order; the environment a user's server starts with holds PATH,
// HOME and LANG alone.
func TestMCPSettings(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, MCPFile), []byte(`{"mcpServers": {"mine": {"command": "my-server"}}, "core": {"unattended": ["mine"]}}`), 0o600))
	env := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "GITHUB_TOKEN": "ghs_x"}
	getenv := func(k string) string { return env[k] }
	r, err := resolve(Env{Getenv: getenv}, Values{MCPConfig: `{"mcpServers": {"api": {"type": "http", "url": "https://mcp.example.com/"}}}`})
	require.NoError(t, err)
	require.NoError(t, r.mcp(getenv, home))
	require.Len(t, r.opts.MCP.User, 2)
	assert.Contains(t, r.opts.MCP.User[0].Servers, "mine")
	assert.Equal(t, []string{"mine"}, r.opts.MCP.User[0].Core.Unattended)
	assert.Contains(t, r.opts.MCP.User[1].Servers, "api")
	assert.Equal(t, []string{"PATH=/usr/bin", "HOME=/home/u"}, r.opts.MCP.HostEnv)
}

func TestMCPSettingsRefused(t *testing.T) {
	t.Parallel()
	getenv := func(string) string { return "" }
	_, err := resolve(Env{Getenv: getenv}, Values{MCPConfig: `{"mcpServers": {"a": {"command": "x", "cwd": "/"}}}`})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `mcp-config: not an MCP configuration`)

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, MCPFile), []byte(`{"mcpServers": {"a": {}}}`), 0o600))
	r := &resolved{}
	err = r.mcp(getenv, bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(bad, MCPFile)+`: server "a": a stdio server needs "command"`)

	fifo := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(fifo, MCPFile), 0o600))
	err = (&resolved{}).mcp(getenv, fifo)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")

	require.NoError(t, (&resolved{}).mcp(getenv, t.TempDir()), "no settings file: no servers")
}
