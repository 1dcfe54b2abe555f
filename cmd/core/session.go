package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/review"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
	"github.com/coreagent/core/setup"
	"github.com/coreagent/core/status"
)

func newSessionCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Run, resume and list agent sessions",
		Long: `A session clones a repository into a throwaway workspace under $CORE_HOME,
drives an OpenAI-compatible coder model turn by turn through a small tool
set, verifies through the sandbox, and lands the result on a branch.

Sessions persist under $CORE_HOME/sessions/<id>/ (session.json,
transcript.jsonl, events.jsonl, report.json) and can be listed and resumed.
A run moves through pending, starting, active and idle (landed, waiting for
a message) to completed; or it ends partial, cancelled or failed. While it
lives, watch follows it, send gives it a message, interrupt stops its
current turn and stop ends it.`,
	}
	cmd.AddCommand(newSessionStartCmd(e), newSessionResumeCmd(e), newSessionLandCmd(e), newSessionListCmd(e), newSessionRmCmd(e), newSessionPruneCmd(e), newSessionSyncCmd(e), newSessionQueueCmd(e), newSessionServeCmd(e),
		newSessionWatchCmd(e), newSessionControlCmd(e, live.OpSend), newSessionControlCmd(e, live.OpInterrupt), newSessionControlCmd(e, live.OpStop))
	return cmd
}

// sessionFlags are the flags start and resume share: the settings of
// package setup (one flag each, named like the setting) and the CLI's own.
type sessionFlags struct {
	vals        setup.Values
	interactive bool
	json        bool
	consoleURL  string
}

// settingFlag is one setting as a flag: only what the user typed reaches
// setup, which falls back to the environment and the defaults. A list
// setting's flag repeats: each value is a line.
type settingFlag struct {
	vals  setup.Values
	name  string
	multi bool
}

func (f settingFlag) String() string { return f.vals[f.name] }
func (f settingFlag) Set(v string) error {
	if f.multi && f.vals[f.name] != "" {
		v = f.vals[f.name] + "\n" + v
	}
	f.vals[f.name] = v
	return nil
}
func (f settingFlag) Type() string { return "string" }

// flagValue is pflag.Value, which cobra's flag sets take.
type flagValue interface {
	String() string
	Set(string) error
	Type() string
}

// boolSettingFlag is a switch setting as a flag: --dry-run alone means
// true, and --help shows it as a switch, with no value to give.
type boolSettingFlag struct{ settingFlag }

func (boolSettingFlag) Type() string     { return "bool" }
func (boolSettingFlag) IsBoolFlag() bool { return true }

// sessionOnly are the settings that belong to the session: resume takes
// them from its record.
var sessionOnly = map[string]bool{setup.Model: true, setup.Verify: true}

func (f *sessionFlags) register(cmd *cobra.Command, withSessionOptions bool) {
	f.vals = setup.Values{}
	fl := cmd.Flags()
	for _, s := range setup.Settings() {
		if !s.Flag || (!withSessionOptions && sessionOnly[s.Name]) {
			continue
		}
		var v flagValue = settingFlag{vals: f.vals, name: s.Name, multi: s.Multi}
		if s.Bool {
			v = boolSettingFlag{settingFlag{vals: f.vals, name: s.Name}}
		}
		fl.Var(v, s.Name, s.Usage+", "+s.Env())
		if s.Bool {
			fl.Lookup(s.Name).NoOptDefVal = "true"
		}
	}
	fl.BoolVar(&f.interactive, "interactive", false, "ask before landing, and when the run is idle prompt for the next instruction (/exit to stop) even when stdin is not a terminal (a terminal gets the prompt unless --idle-timeout is 0)")
	fl.BoolVar(&f.json, "json", false, "print the run's report (as in report.json) on stdout when it ends; progress and the summary stay on stderr")
	fl.StringVar(&f.consoleURL, "console-url", "", "the console the report is delivered to when the session ends (default $CORE_CONSOLE_URL; none: it stays local)")
}

// options builds session.Options from the flags and the environment
// through setup, the one way in; defaults are the CLI's own (resume's
// recorded endpoint).
func (e *env) options(cmd *cobra.Command, f *sessionFlags, defaults map[string]string) (session.Options, error) {
	terminal := isTerminal(e.stdin)
	if terminal {
		// A person at a terminal: the landed run waits for the next
		// instruction; a script's run ends at done.
		defaults = maps.Clone(defaults)
		if defaults == nil {
			defaults = map[string]string{}
		}
		defaults[setup.IdleTimeout] = session.IdleAttended.String()
	}
	ready, err := setup.Options(cmd.Context(), setup.Env{Getenv: e.getenv, Self: e.self, Defaults: defaults, Observer: e.observer(),
		OnRetry: func(r model.Retry) { fmt.Fprintf(e.stderr, "model: %s\n", r) }}, f.vals)
	if err != nil {
		return session.Options{}, setup.Word(err, setup.FlagWording)
	}
	if ready.Discovered {
		fmt.Fprintf(e.stderr, "model server: %s (discovered)\n", ready.Options.Inference.InferenceURL)
	}
	for _, n := range ready.Notices {
		fmt.Fprintf(e.stderr, "core: %s\n", n)
	}
	o := ready.Options
	o.Live.Interactive = f.interactive
	// --idle-timeout 0 (or CORE_SESSION_IDLE_TIMEOUT=0) completes the run
	// at done, at a terminal too: no prompt.
	o.Live.AskNext = terminal && o.Live.IdleTimeout > 0
	o.Services.Approver = &tools.TerminalApprover{In: e.stdin, Out: e.stderr, Terminal: terminal}
	o.Services.Input, o.Services.Output, o.Live.Progress = e.stdin, e.stdout, e.stderr
	if f.json {
		// stdout is the report alone; the diff and questions go with the
		// progress.
		o.Services.Output = e.stderr
	}
	return o, nil
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
	setup.AddGitHub(o, client)
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
		clean                      bool
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

Once the work lands the run is idle: it prints where the work landed (the
branch or the pull request) and the contract's verdict with its table; then,
on a terminal, it asks for the next instruction (/exit, Ctrl-C or the end of
input completes it) for --idle-timeout (20m); --idle-timeout 0 completes it
at done, with no prompt; with no terminal it completes at once unless
--idle-timeout is given. Ctrl-C during a turn interrupts the turn, as core
session interrupt does, and the run goes idle with its work unlanded; a
second Ctrl-C within 3s ends the run (cancelled, its work kept).
Meanwhile core session watch, send, interrupt and stop reach it from
another terminal. With a console (--console-url, CORE_CONSOLE_URL) its
events go to its page there as it works, and its report at its end; a
console that does not answer delays the end by 5 seconds at most.

Exit status: 0 completed, 2 partial (a limit was hit; the work is kept in the
workspace), 3 budget_exhausted (the next request would have passed
--budget-usd or --budget-tokens, so it was not sent; the work landed as a
draft marked [budget exhausted]), 1 failed, 130 cancelled.`,
		Example: `  core session start --repo . --prompt "make the tests pass" --verify test
  core session start --repo ~/src/app --prompt "add a --json flag" --dry-run`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			if prompt != "" {
				// --prompt fix the bug: the shell split the prompt.
				return fmt.Errorf("unexpected argument %q: a prompt of several words needs quotes: --prompt %q", args[0], prompt+" "+strings.Join(args, " "))
			}
			return fmt.Errorf("unexpected argument %q: start takes flags only", args[0])
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if repo == "" {
				return errors.New("--repo is required: owner/name on GitHub, or a local path to a git repository")
			}
			if strings.TrimSpace(prompt) == "" && issue == 0 {
				return errors.New("a goal is required: give --prompt TEXT (or --issue N)")
			}
			if err := checkRepo(repo); err != nil {
				return err
			}
			o, err := e.newOptions(cmd, &f, repo)
			if err != nil {
				return err
			}
			o.Goal.Repo, o.Goal.Prompt, o.Goal.Issue, o.Goal.Base, o.Goal.Branch, o.Goal.Clean = repo, prompt, issue, base, branch, clean
			return e.runNew(cmd, &f, o, repo)
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&repo, "repo", "", "the repository: owner/name on GitHub ($GITHUB_TOKEN or $GH_TOKEN, $GITHUB_API_URL), or a local path to a git repository (required)")
	fl.StringVar(&prompt, "prompt", "", "the goal, in words")
	fl.IntVar(&issue, "issue", 0, "take the goal from this issue's title, body and comments (GitHub repositories)")
	fl.StringVar(&base, "base", "", "branch or commit to start from (default: the repository's default branch); recorded as a full SHA. On GitHub, the head branch of an open pull request lands the work on that pull request")
	fl.StringVar(&branch, "branch", "", "branch to land on (default: "+status.SessionBranch("<id>")+")")
	fl.BoolVar(&clean, "clean", false, "start a local repository's session from HEAD alone; by default its uncommitted and untracked (not ignored) changes are included, and left out of what lands")
	return cmd
}

// newOptions are a new session's options on repo, from the flags and the
// environment, with a GitHub client when repo is owner/name.
func (e *env) newOptions(cmd *cobra.Command, f *sessionFlags, repo string) (session.Options, error) {
	o, err := e.options(cmd, f, nil)
	if err != nil {
		return o, err
	}
	return o, e.github(&o, repo)
}

// runNew runs a new session with o, live on the console when one is
// configured, reports it there, and prints its summary and exit status.
func (e *env) runNew(cmd *cobra.Command, f *sessionFlags, o session.Options, repo string) error {
	finish := e.live(cmd.Context(), f.consoleURL, &o, repo)
	release := e.claimCtrlC(&o)
	rep, err := session.Run(cmd.Context(), o)
	release()
	finish()
	e.report(cmd.Context(), f.consoleURL, rep, repo)
	return e.finish(rep, setup.Word(err, setup.FlagWording), f.json)
}

func newSessionResumeCmd(e *env) *cobra.Command {
	var f sessionFlags
	cmd := &cobra.Command{
		Use:   `resume ID "instruction"`,
		Short: "Continue a session with a new instruction",
		Long: `resume continues a persisted session: its transcript is replayed verbatim to
the model, its workspace is reused, and the limits apply afresh. The model,
the verify tier and the tool-call mode are the session's own. So is its
browser (--browser, --browser-exec, --browser-timeout, --browser-allow-remote),
unless given again: a flag given to resume wins, --browser=false drops it.

The budget is the session's, every run included: --budget-usd and
--budget-tokens given to resume are a top-up, added to it (to what was spent,
when it had none), so a session that ended budget_exhausted goes on with that
much more. The price is the session's too, unless given again.`,
		Example: `  core session resume 20261130-101500-ab12 "carry on" --budget-usd 2`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, err := e.loadSession(args[0])
			if err != nil {
				return err
			}
			o, err := e.resumeOptions(cmd, &f, rec)
			if err != nil {
				return err
			}
			release := e.claimCtrlC(&o)
			rep, err := session.Resume(cmd.Context(), args[0], args[1], o)
			release()
			e.report(cmd.Context(), f.consoleURL, rep, rec.Repo)
			return e.finish(rep, setup.Word(err, setup.FlagWording), f.json)
		},
	}
	f.register(cmd, false)
	return cmd
}

// resumeOptions are the options of a run resuming rec with the flags f:
// the model and the verify tier are the session's own; the endpoint and
// the browser are the ones it recorded unless given; a budget is a
// top-up, what f gives and never the environment's again.
func (e *env) resumeOptions(cmd *cobra.Command, f *sessionFlags, rec *session.Record) (session.Options, error) {
	f.vals[setup.Model], f.vals[setup.Verify] = rec.Model, string(rec.Verify)
	resumeBrowser(f.vals, rec.Browser)
	o, err := e.options(cmd, f, map[string]string{setup.InferenceURL: rec.InferenceURL})
	if err != nil {
		return o, err
	}
	if err := e.github(&o, rec.Repo); err != nil {
		return o, err
	}
	if f.vals[setup.BudgetUSD] == "" {
		o.Limits.Budget.USD = 0
	}
	if f.vals[setup.BudgetTokens] == "" {
		o.Limits.Budget.Tokens = 0
	}
	return o, nil
}

// resumeBrowser gives a resumed run the browser its session recorded, as
// if its flags were given again; a flag given to resume wins, and
// --browser=false drops the recorded browser with its options.
func resumeBrowser(vals setup.Values, b *session.BrowserRecord) {
	if b == nil {
		return
	}
	if v, given := vals[setup.Browser]; given {
		if on, err := strconv.ParseBool(v); err != nil || !on {
			return // off, or a mistake setup words
		}
	}
	recorded := setup.Values{setup.Browser: "true", setup.BrowserExec: b.Exec}
	if b.Timeout > 0 {
		recorded[setup.BrowserTime] = b.Timeout.String()
	}
	if b.AllowRemote {
		recorded[setup.BrowserRemote] = "true"
	}
	for name, v := range recorded {
		if _, given := vals[name]; !given && v != "" {
			vals[name] = v
		}
	}
}

// loadSession reads a persisted session's record.
func (e *env) loadSession(id string) (*session.Record, error) {
	home, err := setup.Home(e.getenv, "")
	if err != nil {
		return nil, err
	}
	store, err := session.OpenStore(home)
	if err != nil {
		return nil, err
	}
	return store.Load(id)
}

// writeReceiptLine prints the line naming a run's receipt, its hash and
// its file (in dir, the session's folder, when that is known), after the
// run's summary; a run without a receipt prints nothing.
func writeReceiptLine(w io.Writer, rep *session.Report, dir string) {
	r := rep.Receipt
	if r == nil {
		return
	}
	file := r.File
	if dir != "" {
		file = filepath.Join(dir, r.File)
	}
	fmt.Fprintf(w, "Receipt: %s (%s)\n", r.Hash, file)
}

// finish prints a run's summary (and, with asJSON, its report on stdout)
// and turns its status into the exit status. A run that stopped before it
// was done says how to continue it.
func (e *env) finish(rep *session.Report, err error, asJSON bool) error {
	if err != nil {
		return err
	}
	rep.WriteSummary(e.stderr)
	dir := ""
	if home, err := setup.Home(e.getenv, ""); err == nil {
		dir = filepath.Join(home, "sessions", rep.ID)
	}
	writeReceiptLine(e.stderr, rep, dir)
	// A review is not resumed: no hint for one.
	switch status := rep.Status; {
	case rep.Kind == review.Kind:
	case status == state.Partial, status == state.Cancelled:
		fmt.Fprintf(e.stderr, "to continue: %s\n", budget.ResumeCommand(rep.ID, ""))
	case status == state.BudgetExhausted:
		fmt.Fprintf(e.stderr, "to continue with more budget: %s\n", budget.ResumeCommand(rep.ID, rep.Budget.TopUp()))
	}
	if asJSON {
		if err := writeJSON(e.rawStdout, rep); err != nil {
			return err
		}
	}
	if code := exitStatus(rep); code != 0 {
		return exitCode(code)
	}
	return nil
}

// exitStatus is the exit status of a run that ended as rep says: 0
// completed, 4 completed with a check that could not judge the result
// (the environment's, the contract unjudged), 2 partial, 3
// budget_exhausted, 130 cancelled, 1 failed.
func exitStatus(rep *session.Report) int {
	switch rep.Status {
	case state.Completed, state.Idle:
		if rep.Contract.Unjudged() {
			return 4
		}
		return 0
	case state.Partial:
		return 2
	case state.BudgetExhausted:
		return 3
	case state.Cancelled:
		return 130
	}
	return 1
}

// writeJSON prints v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func newSessionListCmd(e *env) *cobra.Command {
	var asJSON, byCost bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List persisted sessions, newest first",
		Long: `list shows every session under $CORE_HOME/sessions, newest first: id, repo,
kind (change or review), status (starting, active, idle, completed,
partial, budget_exhausted, cancelled, failed), turns, cost ("no price set"
when unknown), branch, age and, for a review, its findings ("1 confirmed,
2 unconfirmed", from its report.json). A session left live by a process that died shows as failed
(infrastructure); resume continues it. list
creates nothing. --by-cost puts the most expensive first. --json prints the
records, with cost_usd, price and budget, and the last run's spend by turn
and by tool (spend, spend_by_tool), and a review's findings (review).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, home, ok, err := e.lookStore()
			if err != nil {
				return err
			}
			recs := []*session.Record{}
			if ok {
				if recs, err = store.List(); err != nil {
					return err
				}
			}
			if byCost {
				sortByCost(recs)
			}
			if asJSON {
				return writeJSON(e.rawStdout, listEntries(store, recs))
			}
			if len(recs) == 0 {
				fmt.Fprintf(e.stderr, "no sessions in %s\n", home)
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tREPO\tKIND\tSTATUS\tTURNS\tCOST\tBRANCH\tAGE\tFINDINGS")
			now := time.Now()
			for _, r := range recs {
				status := r.Status.Word()
				if r.FailureKind != "" {
					status += " (" + string(r.FailureKind) + ")"
				}
				kind := cmp.Or(r.Kind, "change")
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.ID, r.Repo, kind, status, r.Turns, budget.CostText(r.CostUSD), r.Branch, age(now.Sub(r.CreatedAt)), reviewFindings(store, r))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the sessions' records (as in session.json, with the last run's spend and spend_by_tool, and a review's findings, from report.json) as a JSON array on stdout")
	cmd.Flags().BoolVar(&byCost, "by-cost", false, "the most expensive sessions first (those with no price set last)")
	return cmd
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
