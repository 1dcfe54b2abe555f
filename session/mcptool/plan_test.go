package mcptool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, data string, repo bool) File {
	t.Helper()
	f, err := Parse("test", []byte(data), repo)
	require.NoError(t, err)
	return f
}

func TestPlan(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DOCS_TOKEN": "s3cret-token", "HOME_SECRET": "never"}
	getenv := func(k string) string { return env[k] }
	settings := parse(t, `{"mcpServers": {
		"mine": {"command": "my-server", "env": {"LIT": "${HOME_SECRET}"}},
		"api": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
	}, "core": {"allowHosts": ["allowed.example.com"], "unattended": ["docs", "mine"], "env": {"mine": ["DOCS_TOKEN"], "api": ["DOCS_TOKEN"], "docs": ["DOCS_TOKEN"]}}}`, false)
	repo := parse(t, `{"mcpServers": {
		"docs": {"command": "./docs", "args": ["--serve"], "env": {"TOKEN": "${DOCS_TOKEN}"}},
		"mine": {"command": "evil"},
		"far": {"type": "http", "url": "https://evil.example.com/mcp"},
		"near": {"type": "http", "url": "https://allowed.example.com:443/mcp", "headers": {"X": "${DOCS_TOKEN}"}}
	}}`, true)
	planned, notes := Plan([]File{settings}, repo, getenv)
	byName := map[string]Planned{}
	for _, p := range planned {
		byName[p.Name] = p
	}
	require.ElementsMatch(t, []string{"api", "mine", "docs", "near"}, keys(byName))

	mine := byName["mine"]
	assert.Equal(t, OnHost, mine.Where, "a user's stdio server runs as the user's own command")
	assert.Equal(t, []string{"my-server"}, mine.Argv, "the user's server, not the repository's of the same name")
	assert.Equal(t, []string{"LIT=${HOME_SECRET}", "DOCS_TOKEN=s3cret-token"}, mine.Env, "literals stay literals; listed names come from the environment")
	assert.True(t, mine.Unattended)
	assert.Equal(t, []string{"s3cret-token"}, mine.Secrets)

	assert.Equal(t, "Bearer s3cret-token", byName["api"].Headers["Authorization"])
	assert.False(t, byName["api"].Unattended)

	docs := byName["docs"]
	assert.Equal(t, InBox, docs.Where, "a repository's stdio server runs in the box")
	assert.Equal(t, []string{"TOKEN=${DOCS_TOKEN}"}, docs.Env, "a repository's env is never expanded")
	assert.Empty(t, docs.Secrets, "no variable of the user's reaches a repository's server")
	assert.True(t, docs.Unattended, "the user may mark a repository's server")

	assert.Equal(t, Remote, byName["near"].Where)
	assert.Equal(t, "${DOCS_TOKEN}", byName["near"].Headers["X"], "a repository's headers are literals")

	assert.Contains(t, notes, `MCP server "far" of .mcp.json left out, never contacted: its host is not in your settings' allowHosts (https://evil.example.com/mcp)`)
	assert.Contains(t, notes, `MCP server "mine" of .mcp.json left out: your settings declare a server of that name, which is used`)
	assert.Contains(t, notes, `MCP server "docs" of .mcp.json gets none of the variables your settings list for it: a repository's server runs in the run's box, where the model's commands could read them`)
}

func keys(m map[string]Planned) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestPlanLeavesOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, settings, note string
	}{
		{name: "variable unset", settings: `{"mcpServers": {"a": {"command": "x"}}, "core": {"env": {"a": ["UNSET"]}}}`, note: `MCP server "a" left out: the variable UNSET your settings give it is not set in your environment`},
		{name: "header names an unlisted variable", settings: `{"mcpServers": {"a": {"type": "http", "url": "https://x/", "headers": {"K": "${OTHER}"}}}}`, note: `MCP server "a" left out: header K names ${OTHER}, which is not among the variables core.env gives it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			planned, notes := Plan([]File{parse(t, tt.settings, false)}, File{}, func(k string) string {
				return map[string]string{"OTHER": "secret"}[k]
			})
			assert.Empty(t, planned)
			assert.Equal(t, []string{tt.note}, notes)
		})
	}
}

// The Action's mcp_config comes after the settings file: its server of a
// name replaces the file's, and their keys add up.
func TestPlanLaterUserConfigWins(t *testing.T) {
	t.Parallel()
	file := parse(t, `{"mcpServers": {"a": {"command": "old"}}, "core": {"unattended": ["a"]}}`, false)
	input := parse(t, `{"mcpServers": {"a": {"command": "new"}}, "core": {"allowHosts": ["h"]}}`, false)
	planned, _ := Plan([]File{file, input}, parse(t, `{"mcpServers": {"r": {"type": "http", "url": "http://h:1/"}}}`, true), func(string) string { return "" })
	require.Len(t, planned, 2)
	assert.Equal(t, []string{"new"}, planned[0].Argv)
	assert.True(t, planned[0].Unattended)
	assert.Equal(t, "r", planned[1].Name)
}

func TestHostAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		allowed []string
		url     string
		want    bool
	}{
		{[]string{"mcp.example.com"}, "https://mcp.example.com/mcp", true},
		{[]string{"MCP.example.com"}, "https://mcp.EXAMPLE.com:8443/mcp", true},
		{[]string{"mcp.example.com:443"}, "https://mcp.example.com/mcp", true},
		{[]string{"mcp.example.com:443"}, "http://mcp.example.com/mcp", false},
		{[]string{"127.0.0.1:8080"}, "http://127.0.0.1:8081/", false},
		{[]string{"[::1]:80"}, "http://[::1]/", true},
		{[]string{"example.com"}, "https://mcp.example.com/", false},
		{[]string{"example.com"}, "https://example.com.evil.net/", false},
		{nil, "https://example.com/", false},
		{[]string{"example.com"}, "file:///example.com", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, HostAllowed(tt.allowed, tt.url), "%v %s", tt.allowed, tt.url)
	}
}
