package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/manifest"
	"github.com/coreagent/core/session/mcptool"
)

// MCPOptions are the run's MCP servers (docs/mcp.md): the user's
// configurations, setup's to read, and the repository's .mcp.json, read
// from the workspace when the run starts.
type MCPOptions struct {
	// User are the user's configurations, in order: the settings file
	// ($CORE_HOME/mcp.json), then the Action's mcp_config.
	User []mcptool.File
	// Getenv reads the user's environment, for the variables the user's
	// settings give their servers by name; nil gives none.
	Getenv func(string) string
	// HostEnv is what a user's stdio server starts with (PATH, HOME,
	// LANG), before the variables its settings give it.
	HostEnv []string
	// CallTimeout bounds one call of a server's tool; zero is
	// mcptool.DefaultCallTimeout.
	CallTimeout time.Duration
	// NoRepo leaves the repository's .mcp.json unread.
	NoRepo bool
}

// openMCP starts the run's MCP servers and offers their tools: before the
// first turn, so the model sees them from the start. A server that cannot
// start is named in the progress output and left out; the run goes on.
func (s *run) openMCP(ctx context.Context) {
	o := s.opts.MCP
	repo := s.repoMCP()
	if len(o.User) == 0 && len(repo.Servers) == 0 {
		return
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	planned, notes := mcptool.Plan(o.User, repo, getenv)
	opts := mcptool.Options{CallTimeout: o.CallTimeout, HostEnv: o.HostEnv}
	if sb := s.opts.Services.Sandbox; sb != nil && s.rec.Verify == lang.TierTest && boxless(ctx, sb) == "" {
		opts.Box = mcptool.RunBox{Sandbox: sb, Workspace: s.rec.Workspace}
	}
	servers, more := mcptool.Start(ctx, planned, opts)
	for _, n := range append(notes, more...) {
		fmt.Fprintf(s.opts.Live.Progress, "mcp: %s\n", n)
	}
	s.mcp = servers
	s.tools = s.tools.With(servers.Tools()...)
}

// repoMCP reads the repository's .mcp.json as host code reads a hostile
// workspace: a regular file, no link followed, bounded in size. A file
// that cannot be read or parsed is named in the progress output and its
// servers left out.
func (s *run) repoMCP() mcptool.File {
	if s.opts.MCP.NoRepo {
		return mcptool.File{}
	}
	data, err := manifest.ReadWorkspaceFile(s.rec.Workspace, mcptool.RepoFile, mcptool.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return mcptool.File{}
	}
	var f mcptool.File
	if err == nil {
		f, err = mcptool.Parse(mcptool.RepoFile, data, true)
	}
	if err != nil {
		fmt.Fprintf(s.opts.Live.Progress, "mcp: the repository's servers left out: %v\n", err)
		return mcptool.File{}
	}
	if s.rec.Verify != lang.TierTest && len(f.Servers) > 0 {
		fmt.Fprintf(s.opts.Live.Progress, "mcp: the servers of %s left out: a repository's server runs only at the test tier (--verify test), confined in the run's box\n", mcptool.RepoFile)
		return mcptool.File{}
	}
	return f
}

// closeMCP stops the run's MCP servers.
func (s *run) closeMCP() {
	if s.mcp == nil {
		return
	}
	s.mcp.Close()
	s.mcp = nil
}
