package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/telemetry"
)

// exitCode is returned by a command that has already said what it had to say
// and only needs the process to exit with this status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// env is what a command may touch of the outside world. Everything reads the
// environment through getenv, never os.Getenv, so tests can run in parallel.
type env struct {
	stdin io.Reader
	// stdout and stderr are for people: every control character and
	// escape sequence in what they carry is shown escaped
	// (scrub.TerminalWriter). rawStdout and rawStderr carry what machines
	// read as it is: JSON (--json, the bot's log), the box agent's and
	// the cache program's protocols, the Action's log.
	stdout, stderr       io.Writer
	rawStdout, rawStderr io.Writer
	getenv               func(string) string
	// self is core's executable: it serves Go's build cache inside the
	// sandbox (core sandbox gocache).
	self string
	// signals owns the process's Ctrl-C: a session run here claims it.
	// nil when run is called without a process of its own (tests).
	signals *signals
	// telemetry is the process's OpenTelemetry exporter; nil when the
	// standard variables do not ask for one.
	telemetry *telemetry.Telemetry
}

// observer is what every run of this process hands its events to: the
// exporter, if any.
func (e *env) observer() live.Observer {
	if e.telemetry == nil {
		return nil
	}
	return e.telemetry
}

// newEnv is the commands' environment: stdout and stderr for people,
// escaped for a terminal, beside the raw ones.
func newEnv(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *env {
	self, _ := os.Executable()
	return &env{stdin: stdin, stdout: scrub.TerminalWriter(stdout), stderr: scrub.TerminalWriter(stderr),
		rawStdout: stdout, rawStderr: stderr, getenv: getenv, self: self}
}

// run is the whole program: main only calls it and turns its error into an
// exit status. Tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	return runWith(ctx, nil, args, stdin, stdout, stderr, getenv)
}

// runWith is run in a process whose signals sig owns: a session run here
// takes Ctrl-C from it (claimCtrlC).
func runWith(ctx context.Context, sig *signals, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	e := newEnv(stdin, stdout, stderr, getenv)
	e.signals = sig
	tel, err := telemetry.New(getenv)
	if err != nil {
		// Telemetry never stops core: say what to fix, and run without it.
		fmt.Fprintf(e.stderr, "core: OpenTelemetry is off: %v\n", err)
	}
	e.telemetry = tel
	defer func() {
		// Bounded (telemetry.ShutdownTimeout) whatever the collector does.
		if err := tel.Shutdown(context.WithoutCancel(ctx)); err != nil {
			// Its error holds no header, no URL: only what failed.
			fmt.Fprintf(e.stderr, "core: %v\n", err)
		}
	}()
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err = root.ExecuteContext(ctx)
	var code exitCode
	if err != nil && ctx.Err() != nil && !errors.As(err, &code) {
		// Interrupted before a session could say so itself (while setting
		// up): what failed then is the interruption's doing.
		fmt.Fprintln(e.stderr, "core: cancelled")
		return exitCode(130)
	}
	return err
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "core",
		Short: "An autonomous coding agent for GitHub",
		Long: `core clones a repository into a throwaway workspace, drives an
OpenAI-compatible coder model through a small tool set, checks its own work
inside a bubblewrap sandbox, and lands the result as a branch and a draft pull
request.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newSessionCmd(e), newReviewCmd(e), newAuthCmd(e), newSandboxCmd(e), newActionCmd(e), newBotCmd(e), newVerifyCmd(e), newVersionCmd(e), newMCPCmd(e))
	withUsage(root)
	return root
}

// withUsage makes every command's argument and flag errors end with its
// usage line, so that "accepts 2 arg(s), received 1" says what to type.
func withUsage(cmd *cobra.Command) {
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				return fmt.Errorf("%w\nusage: %s", err, c.UseLine())
			}
			return nil
		}
	}
	if cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil {
		// A group (core session): a word that names none of its commands
		// is an error, not a help page and exit 0.
		cmd.Args = cobra.ArbitraryArgs
		cmd.RunE = unknownCommand
	}
	cmd.SetFlagErrorFunc(flagError)
	for _, sub := range cmd.Commands() {
		withUsage(sub)
	}
}

// flagError is every command's answer to a flag it does not know: on a
// group (core session strat --repo .) the word before it was a mistyped
// command, which is the mistake to name; otherwise the flag, with the
// command's flags it may have meant, and the usage.
func flagError(c *cobra.Command, err error) error {
	if c.HasSubCommands() {
		if args := c.Flags().Args(); len(args) > 0 {
			return unknownCommand(c, args)
		}
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if s := flagSuggestions(c, name); len(s) > 0 {
			msg += "; did you mean --" + strings.Join(s, " or --") + "?"
		}
	}
	return fmt.Errorf("%s\nusage: %s (%s --help explains every flag)", msg, c.UseLine(), c.CommandPath())
}

// flagSuggestions are the flags of c (its own and those it inherits) a
// mistyped name may have meant: within two edits of it, or starting with it.
func flagSuggestions(c *cobra.Command, name string) []string {
	var out []string
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		if editDistance(name, f.Name) <= 2 || (len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			out = append(out, f.Name)
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	return out
}

// editDistance is the Levenshtein distance of a and b, in bytes (flag
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// unknownCommand is a group's action: its help when called alone, else an
// error naming the word it did not know and what it may have meant.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's own default
	}
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return fmt.Errorf("%s (%s --help lists its commands)", msg, c.CommandPath())
}
