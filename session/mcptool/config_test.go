package mcptool

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		repo bool
		err  string // a part of the error; "" for none
	}{
		{name: "stdio", data: `{"mcpServers": {"docs": {"command": "./docs", "args": ["--x"], "env": {"A": "b"}}}}`, repo: true},
		{name: "http", data: `{"mcpServers": {"api": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"X-Key": "v"}}}}`, repo: true},
		{name: "user keys", data: `{"mcpServers": {}, "core": {"allowHosts": ["mcp.example.com"], "unattended": ["docs"], "env": {"docs": ["DOCS_TOKEN"]}}}`},
		{name: "repository keys refused", data: `{"mcpServers": {}, "core": {"unattended": ["docs"]}}`, repo: true, err: `the key "core"`},
		{name: "unknown key", data: `{"mcpServers": {"docs": {"command": "x", "cwd": "/"}}}`, err: `unknown field "cwd"`},
		{name: "trailing data", data: `{"mcpServers": {}} {}`, err: "trailing data"},
		{name: "not json", data: `mcpServers: x`, err: "not an MCP configuration"},
		{name: "no command", data: `{"mcpServers": {"docs": {"args": ["x"]}}}`, err: `needs "command"`},
		{name: "sse", data: `{"mcpServers": {"docs": {"type": "sse", "url": "http://x"}}}`, err: `"type" "sse"`},
		{name: "url with user", data: `{"mcpServers": {"a": {"type": "http", "url": "https://u:p@x/"}}}`, err: "no user:password"},
		{name: "file url", data: `{"mcpServers": {"a": {"type": "http", "url": "file:///etc/shadow"}}}`, err: "http or https"},
		{name: "http with command", data: `{"mcpServers": {"a": {"type": "http", "url": "https://x/", "command": "sh"}}}`, err: "not \"command\""},
		{name: "bad server name", data: `{"mcpServers": {"a b": {"command": "x"}}}`, err: "server name"},
		{name: "bad env name", data: `{"mcpServers": {"a": {"command": "x", "env": {"A=B": "c"}}}}`, err: "not a variable name"},
		{name: "header injection", data: `{"mcpServers": {"a": {"type": "http", "url": "https://x/", "headers": {"X": "a\r\nHost: evil"}}}}`, err: "not a valid header"},
		{name: "bad host", data: `{"mcpServers": {}, "core": {"allowHosts": ["https://x/"]}}`, err: "allowHosts"},
		{name: "too big", data: `{"mcpServers": {}, "x": "` + strings.Repeat("a", MaxConfigSize) + `"}`, err: "over the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("repo/.mcp.json", []byte(tt.data), tt.repo)
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			assert.True(t, strings.HasPrefix(err.Error(), "repo/.mcp.json: "), "the error names the file: %v", err)
		})
	}
}

// Whatever the bytes, Parse returns a configuration within its bounds or
// an error naming the file; it never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"docs": {"command": "./docs", "args": ["a"], "env": {"A": "b"}}}}`), true)
	f.Add([]byte(`{"mcpServers": {"a": {"type": "http", "url": "https://x/", "headers": {"K": "${T}"}}}, "core": {"env": {"a": ["T"]}}}`), false)
	f.Add([]byte(`{"mcpServers": null}`), true)
	f.Fuzz(func(t *testing.T, data []byte, repo bool) {
		file, err := Parse("f", data, repo)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(file.Servers) > MaxServers {
			t.Fatalf("%d servers", len(file.Servers))
		}
		if repo && !file.Core.empty() {
			t.Fatal("a repository's file with core's keys")
		}
		for name, s := range file.Servers {
			if !serverName.MatchString(name) || (s.Command == "" && s.URL == "") {
				t.Fatalf("server %q: %+v", name, s)
			}
		}
	})
}
