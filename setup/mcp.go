package setup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coreagent/core/session/mcptool"
)

// MCPConfig is the setting of the Action's MCP servers (mcp_config).
const MCPConfig = "mcp-config"

// MCPFile is the user's MCP settings, in the state directory.
const MCPFile = "mcp.json"

// mcpSettings are the run's MCP servers beside the settings file.
func mcpSettings() []Setting {
	return []Setting{
		{Name: MCPConfig, Input: true, Usage: "MCP servers whose tools the model may call, in the common format {\"mcpServers\": {...}} with core's own keys under \"core\" (allowHosts, unattended, env), trusted as the user's settings ($CORE_HOME/mcp.json) are; see docs/mcp.md",
			apply: func(r *resolved, v string) error {
				f, err := mcptool.Parse("", []byte(v), false)
				r.mcpInput = &f
				return err
			}},
	}
}

// mcp fills the run's MCP options: the user's settings file, then the
// Action's mcp_config; the user's environment for the variables they name,
// and the environment a user's stdio server starts with.
func (r *resolved) mcp(getenv func(string) string, home string) error {
	path := filepath.Join(home, MCPFile)
	data, err := readSettingsFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		f, err := mcptool.Parse(path, data, false)
		if err != nil {
			return err
		}
		r.opts.MCP.User = append(r.opts.MCP.User, f)
	}
	if r.mcpInput != nil {
		r.opts.MCP.User = append(r.opts.MCP.User, *r.mcpInput)
	}
	r.opts.MCP.Getenv = getenv
	for _, n := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
		if v := getenv(n); v != "" {
			r.opts.MCP.HostEnv = append(r.opts.MCP.HostEnv, n+"="+v)
		}
	}
	return nil
}

// readSettingsFile reads the user's MCP settings: a regular file, bounded.
func readSettingsFile(path string) ([]byte, error) {
	// Looked at before it is opened: opening a FIFO would wait.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file: make it one, or remove it", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, mcptool.MaxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}
