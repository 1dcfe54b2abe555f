package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/tools"
)

func newSessionCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Run, resume and list agent sessions",
		Long: `A session clones a repository into a throwaway workspace under $CORE_HOME,
drives an OpenAI-compatible coder model turn by turn through a small tool
set, verifies through the sandbox, and lands the result on a branch.

Sessions persist under $CORE_HOME/sessions/<id>/ (session.json,
transcript.jsonl, report.json) and can be listed and resumed.`,
	}
	cmd.AddCommand(newSessionStartCmd(e), newSessionResumeCmd(e), newSessionListCmd(e))
	return cmd
}

// sessionFlags are the flags start and resume share.
type sessionFlags struct {
	model         string
	inferenceURL  string
	maxTurns      int
	timeout       time.Duration
	turnTimeout   time.Duration
	shellTimeout  time.Duration
	contextTokens int
	verify        string
	dryRun        bool
	interactive   bool
	think         bool
	toolCalls     string
}

func (f *sessionFlags) register(cmd *cobra.Command, withSessionOptions bool) {
	fl := cmd.Flags()
	if withSessionOptions {
		fl.StringVar(&f.model, "model", session.DefaultModel, "model name sent to the endpoint")
		fl.StringVar(&f.toolCalls, "tool-calls", session.ToolCallsText, "how the model sends actions: text (written in the reply, as the prompt shows), native (OpenAI function calling: tools in the request, tool_calls in the reply) or auto (asks the server once; native when it takes tools, else text)")
		fl.StringVar(&f.verify, "verify", "", "what run_shell may run without approval: off, build (compile, no workspace code) or test (adds go test and flutter test, only inside the sandbox); default $CORE_SESSION_VERIFY, else off")
	}
	fl.StringVar(&f.inferenceURL, "inference-url", "", "OpenAI-compatible base URL (default $CORE_SESSION_INFERENCE_URL, else discovered: http://127.0.0.1:35536, :8081, :8080 are tried with GET /v1/models)")
	fl.IntVar(&f.maxTurns, "max-turns", session.DefaultMaxTurns, "hard cap on model turns; reaching it ends the run as partial")
	fl.DurationVar(&f.timeout, "timeout", session.DefaultTimeout, "wall-clock cap on the whole run (partial)")
	fl.DurationVar(&f.turnTimeout, "turn-timeout", session.DefaultTurnTimeout, "cap on one generation; a runaway turn ends the run as partial")
	fl.DurationVar(&f.shellTimeout, "shell-timeout", session.DefaultShellTimeout, "per-command timeout for run_shell")
	fl.IntVar(&f.contextTokens, "context-tokens", session.DefaultContextTokens, "estimated tokens one request may hold; older tool results are elided beyond it")
	fl.BoolVar(&f.dryRun, "dry-run", false, "run the whole loop, land nothing, print the diff")
	fl.BoolVar(&f.interactive, "interactive", false, "after the instruction completes, prompt for more (/exit to stop), and ask before landing")
	fl.BoolVar(&f.think, "think", false, "let the model emit its <think> trace (otherwise /no_think is appended to the instruction)")
}

// options builds session.Options from the flags and the environment.
func (e *env) options(cmd *cobra.Command, f *sessionFlags) (session.Options, error) {
	var o session.Options
	home, err := e.coreHome()
	if err != nil {
		return o, err
	}
	store, err := session.OpenStore(home)
	if err != nil {
		return o, err
	}
	sb, err := e.sandbox()
	if err != nil {
		return o, err
	}
	verify := f.verify
	if verify == "" {
		verify = e.getenv("CORE_SESSION_VERIFY")
	}
	tier, err := sandbox.ParseTier(verify)
	if err != nil {
		return o, fmt.Errorf("--verify: %w", err)
	}
	url, err := e.inferenceURL(cmd, f.inferenceURL)
	if err != nil {
		return o, err
	}
	apiKey := e.getenv("CORE_SESSION_API_KEY")
	if apiKey == "" {
		apiKey = e.getenv("OPENAI_API_KEY")
	}
	terminal := isTerminal(e.stdin)
	o = session.Options{
		Model:         f.model,
		InferenceURL:  url,
		MaxTurns:      f.maxTurns,
		Timeout:       f.timeout,
		TurnTimeout:   f.turnTimeout,
		ShellTimeout:  f.shellTimeout,
		ContextTokens: f.contextTokens,
		Verify:        tier,
		DryRun:        f.dryRun,
		Interactive:   f.interactive,
		Think:         f.think,
		ToolCalls:     f.toolCalls,
		Store:         store,
		Sandbox:       sb,
		Client:        model.New(model.Config{BaseURL: url, APIKey: apiKey, Model: f.model}),
		Approver:      &tools.TerminalApprover{In: e.stdin, Out: e.stderr, Terminal: terminal},
		Input:         e.stdin,
		Output:        e.stdout,
		Progress:      e.stderr,
		GitEnv:        session.GitEnv(e.getenv),
	}
	return o, nil
}

// inferenceURL picks the model endpoint: the flag, the environment, or the
// first local server that answers.
func (e *env) inferenceURL(cmd *cobra.Command, flag string) (string, error) {
	url, discovered, err := model.Endpoint(cmd.Context(), nil, flag, e.getenv("CORE_SESSION_INFERENCE_URL"))
	if discovered {
		fmt.Fprintf(e.stderr, "model server: %s (discovered)\n", url)
	}
	return url, err
}

// github gives the options a GitHub client when repo is owner/name (and
// not a directory here): the token from GITHUB_TOKEN or GH_TOKEN, the API
// from GITHUB_API_URL. The token becomes a secret the session never writes.
func (e *env) github(o *session.Options, repo string) error {
	if fi, err := os.Stat(repo); err == nil && fi.IsDir() {
		return nil
	}
	if !gh.IsRepoName(repo) {
		return fmt.Errorf("--repo must be owner/name or a local path to a git repository, got %q", repo)
	}
	creds, err := gh.CredentialsFromEnv(e.getenv)
	if err != nil {
		return err
	}
	client, err := gh.New(creds, nil)
	if err != nil {
		return err
	}
	o.GitHub = client
	o.Secrets = append(o.Secrets, client.Secrets()...)
	return nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func newSessionStartCmd(e *env) *cobra.Command {
	var (
		f                          sessionFlags
		repo, prompt, base, branch string
		issue                      int
	)
	cmd := &cobra.Command{
		Use:   "start --repo OWNER/NAME|PATH (--prompt TEXT | --issue N) [flags]",
		Short: "Start a session on a repository",
		Long: `start clones the repository into $CORE_HOME/workspaces/<id> (a local
repository itself is never touched), drives the model until it calls done or
a limit is hit, and lands the work as a commit on core-session/<id> (or
--branch): for a GitHub repository, pushed with a draft pull request against
--base, or pushed onto the open pull request whose head --base names; for a
local repository, fetched into it as a new branch.

Every run_shell command waits for "approve? [y/N]" on the terminal, unless
--verify lets it run unattended; with no terminal, it is declined.

Exit status: 0 done, 2 partial (a limit was hit; the work is kept in the
workspace), 1 failed, 130 cancelled.`,
		Example: `  core session start --repo . --prompt "make the tests pass" --verify test
  core session start --repo ~/src/app --prompt "add a --json flag" --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if repo == "" {
				return errors.New("--repo is required: owner/name on GitHub, or a local path to a git repository")
			}
			if strings.TrimSpace(prompt) == "" && issue == 0 {
				return errors.New("a goal is required: give --prompt TEXT (or --issue N)")
			}
			o, err := e.options(cmd, &f)
			if err != nil {
				return err
			}
			if err := e.github(&o, repo); err != nil {
				return err
			}
			o.Repo, o.Prompt, o.Issue, o.Base, o.Branch = repo, prompt, issue, base, branch
			rep, err := session.Run(cmd.Context(), o)
			return e.finish(rep, err)
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&repo, "repo", "", "the repository: owner/name on GitHub ($GITHUB_TOKEN or $GH_TOKEN, $GITHUB_API_URL), or a local path to a git repository (required)")
	fl.StringVar(&prompt, "prompt", "", "the goal, in words")
	fl.IntVar(&issue, "issue", 0, "take the goal from this issue's title, body and comments (GitHub repositories)")
	fl.StringVar(&base, "base", "", "branch or commit to start from (default: the repository's default branch); recorded as a full SHA. On GitHub, the head branch of an open pull request lands the work on that pull request")
	fl.StringVar(&branch, "branch", "", "branch to land on (default: core-session/<id>)")
	return cmd
}

func newSessionResumeCmd(e *env) *cobra.Command {
	var f sessionFlags
	cmd := &cobra.Command{
		Use:   `resume ID "instruction"`,
		Short: "Continue a session with a new instruction",
		Long: `resume continues a persisted session: its transcript is replayed verbatim to
the model, its workspace is reused, and the limits apply afresh. The model,
the verify tier and the tool-call mode are the session's own.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, err := e.loadSession(args[0])
			if err != nil {
				return err
			}
			f.model = rec.Model
			o, err := e.options(cmd, &f)
			if err != nil {
				return err
			}
			if err := e.github(&o, rec.Repo); err != nil {
				return err
			}
			rep, err := session.Resume(cmd.Context(), args[0], args[1], o)
			return e.finish(rep, err)
		},
	}
	f.register(cmd, false)
	return cmd
}

// loadSession reads a persisted session's record.
func (e *env) loadSession(id string) (*session.Record, error) {
	home, err := e.coreHome()
	if err != nil {
		return nil, err
	}
	store, err := session.OpenStore(home)
	if err != nil {
		return nil, err
	}
	return store.Load(id)
}

// finish prints a run's summary and turns its status into the exit status.
func (e *env) finish(rep *session.Report, err error) error {
	if err != nil {
		return err
	}
	rep.WriteSummary(e.stderr)
	switch rep.Status {
	case session.StatusDone:
		return nil
	case session.StatusPartial:
		return exitCode(2)
	case session.StatusCancelled:
		return exitCode(130)
	}
	return exitCode(1)
}

func newSessionListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List persisted sessions, newest first",
		Long: `list shows every session under $CORE_HOME/sessions, newest first: id, repo,
status, turns, branch and age. A session left running by a process that died
shows as failed (infrastructure).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := e.coreHome()
			if err != nil {
				return err
			}
			store, err := session.OpenStore(home)
			if err != nil {
				return err
			}
			recs, err := store.List()
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				fmt.Fprintf(e.stderr, "no sessions in %s\n", home)
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tREPO\tSTATUS\tTURNS\tBRANCH\tAGE")
			now := time.Now()
			for _, r := range recs {
				status := string(r.Status)
				if r.FailureKind != "" {
					status += " (" + string(r.FailureKind) + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Repo, status, r.Turns, r.Branch, age(now.Sub(r.CreatedAt)))
			}
			return tw.Flush()
		},
	}
}

// age prints a duration the way people say it: 45s, 12m, 3h, 2d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
