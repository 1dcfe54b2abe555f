package session

import (
	"context"
	"fmt"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/mcptool"
)

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

// repoMCP is the repository's .mcp.json (mcptool.ReadRepo). A file that
// cannot be read or parsed is named in the progress output and its
// servers left out; so are its servers below the test tier.
func (s *run) repoMCP() mcptool.File {
	if s.opts.MCP.NoRepo {
		return mcptool.File{}
	}
	f, err := mcptool.ReadRepo(s.rec.Workspace)
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
