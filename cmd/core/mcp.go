package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/buildinfo"
)

// mcpFlags are core mcp's flags: serve's allow-list and landing switch.
type mcpFlags struct {
	repos     []string
	allowLand bool
}

func newMCPCmd(e *env) *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp --repo OWNER/NAME|PATH [--repo ...] [--allow-land]",
		Short: "Serve this machine's runs to an editor or another agent over MCP (stdio)",
		Long: `mcp speaks the Model Context Protocol on stdin and stdout to the process that
started it (an editor, another agent): only that process, run as you, is
served. Its tools start a session (the options of core session start, the
same defaults and pre-flight), list sessions, follow a run's events, send a
message, interrupt, stop, land and read a report.

Every tool works only on the --repo repositories: a session is started, and
a session is listed, followed, steered, landed or read, only when its
repository is one of them; any other is refused. --repo is an owner/name on
GitHub (no wildcards, compared as GitHub compares names) or a local git
repository's directory (compared by its absolute path, links resolved).
Nobody answers the approval gate: every gated tool (run_shell, file_issue)
is denied, as under core session serve; verification commands still run
confined under the session's verify tier. Without --allow-land a session
started here is a dry run (its work stays in the workspace, nothing is
pushed) and the land tool is refused.

Runs started here go on when the tool call that started them returns.
When core mcp exits (its client closed stdin, or SIGTERM) it stops the runs
it started, as serve does on SIGTERM: they end cancelled with their work
kept, and core session resume continues them. Runs started elsewhere are
never stopped by it. Progress goes to stderr; stdout carries the protocol
alone. See docs/mcp-server.md.`,
		Example: `  core mcp --repo acme/app --repo ~/src/tool
  core mcp --repo acme/app --allow-land`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			allow, err := allowList(f.repos)
			if err != nil {
				return err
			}
			return e.serveMCP(cmd, &mcpServer{allow: allow, allowLand: f.allowLand})
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.repos, "repo", nil, "a repository (owner/name on GitHub, or a local git repository's directory) the tools may act on; repeat for more (required)")
	fl.BoolVar(&f.allowLand, "allow-land", false, "let sessions land (a commit and a draft pull request, or a local branch) and allow the land tool (default: every session is a dry run)")
	return cmd
}

// allowList checks --repo: at least one, each owner/name with no
// wildcards or an existing directory, kept by its absolute real path.
func allowList(repos []string) ([]string, error) {
	if len(repos) == 0 {
		return nil, errors.New("--repo is required: name each repository (owner/name, or a local git repository's directory) core mcp may act on")
	}
	out := make([]string, 0, len(repos))
	for _, r := range repos {
		if strings.ContainsAny(r, "*?") {
			return nil, fmt.Errorf("--repo must be owner/name or a directory (no wildcards), got %q", r)
		}
		if p, ok := localRepo(r); ok {
			out = append(out, p)
			continue
		}
		if !gh.IsRepoName(r) {
			return nil, fmt.Errorf("--repo must be owner/name or an existing directory, got %q", r)
		}
		out = append(out, r)
	}
	return out, nil
}

// localRepo is repo's absolute path, links resolved, when repo is a
// directory here.
func localRepo(repo string) (string, bool) {
	fi, err := os.Stat(repo)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", false
	}
	return real, true
}

// repoAllowed reports whether repo is one of allow (allowList's): a
// GitHub name compared as GitHub does (case aside), a local directory by
// its absolute real path. The one rule every tool of core mcp applies.
func repoAllowed(allow []string, repo string) bool {
	if p, ok := localRepo(repo); ok {
		return slices.Contains(allow, p)
	}
	if !gh.IsRepoName(repo) {
		return false
	}
	return slices.ContainsFunc(allow, func(a string) bool { return strings.EqualFold(a, repo) })
}

// mcpServer is core mcp's state: its rules and the runs it started.
type mcpServer struct {
	allow     []string
	allowLand bool
	// runs are the sessions started here, still running: each one's
	// goroutine is counted, so that core mcp's exit waits for their end.
	runs sync.WaitGroup
}

// refusedRepo is the error of a tool asked about a repository outside
// the allow-list.
func (m *mcpServer) refusedRepo(repo string) error {
	return fmt.Errorf("%s is not a repository core mcp serves (--repo %s): start core mcp with --repo %s to allow it", repo, strings.Join(m.allow, ", --repo "), repo)
}

// serveMCP serves the tools on stdin and stdout until the client closes
// them or the context ends; then it stops the runs it started and waits
// for their end.
func (e *env) serveMCP(cmd *cobra.Command, m *mcpServer) error {
	// Whatever a run prints goes to stderr: stdout is the protocol's.
	quiet := *e
	quiet.stdin, quiet.stdout, quiet.rawStdout = strings.NewReader(""), e.stderr, e.rawStderr
	runCtx, stopRuns := context.WithCancel(context.WithoutCancel(cmd.Context()))
	defer stopRuns()
	t := &mcpTools{e: &quiet, m: m, cmd: cmd, runCtx: runCtx}
	srv := mcp.NewServer(&mcp.Implementation{Name: "core", Version: buildinfo.Version()}, &mcp.ServerOptions{
		Instructions: "core runs coding sessions on this machine: start_session, then follow_session with the cursor it returns until ended is true; send_message, interrupt_session and stop_session steer a live run; resume_session continues one that has ended; read_report reads its report.",
	})
	t.register(srv)
	fmt.Fprintf(e.stderr, "core mcp: serving %s on stdio\n", strings.Join(m.allow, ", "))
	if !m.allowLand {
		fmt.Fprintln(e.stderr, "core mcp: without --allow-land every session is a dry run: nothing is pushed")
	}
	err := srv.Run(cmd.Context(), &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.rawStdout}})
	stopRuns()
	m.runs.Wait()
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("core mcp: %w", err)
	}
	return nil
}

// nopWriteCloser is a writer the transport may close: stdout stays open.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
