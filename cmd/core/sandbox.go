package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/spf13/cobra"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/setup"
)

// sandbox builds the Sandbox from the environment, as every run does.
func (e *env) sandbox() (*sandbox.Sandbox, error) {
	home, err := setup.Home(e.getenv, "")
	if err != nil {
		return nil, err
	}
	sb, err := setup.Sandbox(e.getenv, home, e.self)
	return sb, setup.Word(err, setup.FlagWording)
}

func newSandboxCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Check and use the bubblewrap sandbox that confines verification commands",
		Long: `Unattended runs verify their work (builds, tests) without a human, but only
inside a bubblewrap sandbox: no network, a read-only system whose root-only
files are hidden, a writable workspace whose .git stays read-only, a scrubbed
environment, nothing of $CORE_HOME but the Go caches, a seccomp filter, and
limits on processes, memory, CPU time, file size, /tmp and workspace growth
(CORE_SANDBOX_PIDS, CORE_SANDBOX_MEMORY, CORE_SANDBOX_CPU,
CORE_SANDBOX_FILE_SIZE, CORE_SANDBOX_TMP, CORE_SANDBOX_WORKSPACE_GROWTH).

CORE_SESSION_SANDBOX picks the mode: auto (default) uses bwrap when the live
probe passes, else a sibling container through the Docker engine (inside a
Docker action, where bwrap has no namespaces), bwrap or docker makes that
backend's failed probe fatal, off opts out (and then --verify test refuses to
start).`,
	}
	cmd.AddCommand(newSandboxProbeCmd(e), newSandboxRunCmd(e), newSandboxGoCacheCmd(e), newSandboxAgentCmd(e), newSandboxEgressCmd())
	return cmd
}

// newSandboxAgentCmd is the agent core starts inside a workspace's box;
// people never run it.
func newSandboxAgentCmd(e *env) *cobra.Command {
	var socket string
	var lifeline, reap bool
	cmd := &cobra.Command{
		Use:    "agent --socket PATH [--lifeline] | agent --reap -- MODE PATH ARGV...",
		Short:  "Run the commands core sends into a box (one sandbox per run); core starts it inside the box",
		Hidden: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if reap {
				return nil
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if reap {
				// One command's runner, which the agent starts for each.
				if code := boxagent.RunCommandReaper(args); code != 0 {
					return exitCode(code)
				}
				return nil
			}
			if socket == "" || !filepath.IsAbs(socket) {
				return fmt.Errorf("--socket must be the absolute path of the agent's socket, got %q", socket)
			}
			if lifeline {
				return boxagent.RunContainerAgent(os.Args, socket, os.Stdin, e.rawStdout)
			}
			return boxagent.RunBoxAgent(socket, e.rawStdout)
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "where to listen for core's commands")
	cmd.Flags().BoolVar(&reap, "reap", false, "run one command as its runner, which ends every process it leaves (the agent starts it)")
	cmd.Flags().BoolVar(&lifeline, "lifeline", false, "run as a box container's first process, exiting when stdin ends (the Docker backend)")
	return cmd
}

// newSandboxGoCacheCmd is what the go command starts inside the sandbox as
// its GOCACHEPROG; people never run it.
func newSandboxGoCacheCmd(e *env) *cobra.Command {
	var dir, socket, stage, shared string
	cmd := &cobra.Command{
		Use:    "gocache --dir DIR [--socket PATH --stage DIR --shared DIR]",
		Short:  "Serve Go's build cache to a confined go command (GOCACHEPROG); core starts it inside the sandbox",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" || !filepath.IsAbs(dir) {
				return fmt.Errorf("--dir must be the absolute path of the run's build cache, got %q", dir)
			}
			return gocache.ServeProg(e.stdin, e.rawStdout, dir, socket, stage, shared)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the run's build cache, where every entry is written")
	cmd.Flags().StringVar(&socket, "socket", "", "core's socket for entries of the user's build cache and for what is put (none: the run's cache alone)")
	cmd.Flags().StringVar(&stage, "stage", "", "the read-only directory where core links the user's outputs")
	cmd.Flags().StringVar(&shared, "shared", "", "the repository's read-only shared build cache, which core alone writes")
	return cmd
}

func newSandboxProbeCmd(e *env) *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Say whether the sandbox works here, and why not when it does not",
		Long: `probe runs the exact production profile once: it starts a sandboxed command
in a scratch workspace, writes a file there, checks that .git is read-only and
that no network is visible. It tries bwrap, then (in auto mode, when bwrap
cannot make namespaces, as inside a Docker action) a sibling container through
the Docker engine, and prints which backend it chose (backend: bwrap or
backend: docker), the bwrap version, and for a backend not used its own words
and the likely cause.

Exit status: 0 when the sandbox is usable, 1 when it is not. Workflows use it
to raise --verify build to --verify test.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sb, err := e.sandbox()
			if err != nil {
				return err
			}
			var p sandbox.ProbeResult
			if workspace != "" {
				p = sb.ProbeIn(cmd.Context(), workspace)
			} else {
				p = sb.Probe(cmd.Context())
			}
			out := e.stdout
			if p.Usable && p.Backend == sandbox.BackendBwrap {
				fmt.Fprintf(out, "sandbox: usable (%s, %s)\n", orUnknown(p.Version), p.Bwrap)
				fmt.Fprintf(out, "backend: bwrap\n")
				if p.Seccomp {
					fmt.Fprintln(out, "seccomp: filter loaded (verified inside the sandbox)")
				}
				for _, l := range p.Limits {
					fmt.Fprintf(out, "limit: %s\n", l)
				}
			} else {
				if p.Usable {
					fmt.Fprintf(out, "sandbox: usable (docker)\n")
				} else {
					fmt.Fprintf(out, "sandbox: not usable\n")
				}
				printBwrapProbe(out, p)
			}
			if p.Docker != nil {
				printDockerProbe(out, *p.Docker)
			}
			if !p.Usable {
				return exitCode(1)
			}
			for _, l := range sb.Caches(p.Backend) {
				fmt.Fprintln(out, l)
			}
			if sb.Mode() == sandbox.ModeOff {
				fmt.Fprintln(out, "note: CORE_SESSION_SANDBOX=off, so core will not use it")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "directory to make the probe's scratch workspace in (default: the system temporary directory)")
	return cmd
}

func newSandboxRunCmd(e *env) *cobra.Command {
	var (
		workspace string
		verify    string
		timeout   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run [--workspace DIR] [--verify TIER] -- ARGV...",
		Short: "Run one command under the production sandbox profile",
		Long: `run runs one command exactly as the agent's verification commands run: under
the production profile, with the workspace as its working directory, and
exits with the command's exit status.

Without --verify the command always runs confined (and fails when the sandbox
is unusable). With --verify build or test it runs only if that tier allows it
unattended, where the tier would run it.`,
		Example: `  core sandbox run --workspace . -- go test ./...
  core sandbox run --verify build -- go vet ./...`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			sb, err := e.sandbox()
			if err != nil {
				return err
			}
			if timeout < 0 {
				return fmt.Errorf("--timeout must not be negative, got %s", timeout)
			}
			// One command: a sandbox of its own costs less than a box.
			opts := sandbox.RunOptions{Workspace: workspace, Timeout: timeout, NoBox: true}
			var r sandbox.Result
			if verify == "" {
				r, err = sb.Run(cmd.Context(), argv, opts)
			} else {
				tier, perr := lang.ParseTier(verify)
				if perr != nil {
					return fmt.Errorf("--verify: %w", perr)
				}
				if err := sb.Require(cmd.Context(), tier); err != nil {
					return fmt.Errorf("--verify: %w", err)
				}
				r, err = sb.Verify(cmd.Context(), tier, argv, opts)
			}
			if err != nil {
				return err
			}
			fmt.Fprint(e.stdout, r.Output)
			where := "on the host"
			if r.Sandboxed {
				where = "sandboxed"
			}
			fmt.Fprintf(e.stderr, "core: %s exited %d after %s (%s)\n", strings.Join(argv, " "), r.ExitCode, r.Duration.Round(1e6), where)
			if r.Limit != "" {
				fmt.Fprintf(e.stderr, "core: stopped by the sandbox's %s limit\n", r.Limit)
			}
			if r.ExitCode != 0 {
				code := r.ExitCode
				if code < 0 {
					code = 128 + 9
				}
				return exitCode(code)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "the command's workspace and working directory (default: the current directory)")
	cmd.Flags().StringVar(&verify, "verify", "", "run only if this tier allows the command unattended: off, build or test")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "kill the command (and everything it started) after this long, e.g. 10m (default: no limit)")
	return cmd
}

// printBwrapProbe says why bwrap was not chosen.
func printBwrapProbe(out io.Writer, p sandbox.ProbeResult) {
	if p.Bwrap != "" {
		fmt.Fprintf(out, "bwrap: %s (%s)\n", p.Bwrap, orUnknown(p.Version))
	}
	fmt.Fprintf(out, "cause: %s\n", p.Cause)
	if p.Output != "" {
		fmt.Fprintf(out, "bwrap said:\n%s\n", indent(p.Output))
	}
}

// printDockerProbe says what the Docker backend's probe found.
func printDockerProbe(out io.Writer, d docker.Probe) {
	if d.Usable {
		fmt.Fprintf(out, "backend: docker (engine %s at %s)\n", d.Version, d.Host)
		if d.Container != "" {
			fmt.Fprintf(out, "docker: core's container %.12s; commands run in sibling containers of its image %s: one box per run, and one of their own for the contract's checks\n", d.Container, d.Image)
		} else {
			fmt.Fprintf(out, "docker: commands run in containers of the image %s\n", d.Image)
		}
		return
	}
	fmt.Fprintf(out, "docker: not usable (%s)\n", d.Host)
	fmt.Fprintf(out, "docker cause: %s\n", d.Cause)
	if d.Output != "" {
		fmt.Fprintf(out, "docker said:\n%s\n", indent(d.Output))
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "version unknown"
	}
	return s
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
