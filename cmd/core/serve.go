package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/auth"
	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/remote"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/tools"
	"github.com/coreagent/core/setup"
)

// signedIn reads the core auth login credentials.
func (e *env) signedIn() (*auth.Credentials, string, error) {
	home, err := setup.Home(e.getenv, "")
	if err != nil {
		return nil, "", err
	}
	c, err := auth.Load(home)
	if err != nil {
		return nil, home, err
	}
	if c.Expired(time.Now()) {
		return nil, home, fmt.Errorf("the token of core auth login expired %s: run core auth login again", c.ExpiresAt.Format(time.RFC3339))
	}
	return c, home, nil
}

// consoleAs is the console to reach (the flag, else CORE_CONSOLE_URL or
// config.toml) and the signed-in user's credentials.
func (e *env) consoleAs(flagURL string) (string, *auth.Credentials, error) {
	u, err := e.consoleURL(flagURL)
	if err != nil {
		return "", nil, err
	}
	if u == "" {
		return "", nil, errors.New("no console: pass --console-url, set CORE_CONSOLE_URL, or write console_url in $CORE_HOME/config.toml")
	}
	creds, _, err := e.signedIn()
	if err != nil {
		return "", nil, err
	}
	return u, creds, nil
}

func newSessionQueueCmd(e *env) *cobra.Command {
	var consoleURL string
	var o remote.Order
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   `queue --repo OWNER/NAME [--resume ID] [--budget-usd N] "instruction"`,
		Short: "Queue an instruction on the console for your own core session serve",
		Long: `queue queues an instruction on the console (--console-url or CORE_CONSOLE_URL)
as the user of core auth login; your core session serve claims and runs it.
With --resume it continues a session of the machine that runs serve, as
core session resume ID "instruction" does there, and --budget-usd is then a
top-up: what the console's page of a run whose budget ran out queues.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Instruction = args[0]
			if timeout != 0 {
				o.Limits.Timeout = timeout.String()
			}
			if err := checkOrder(o, timeout); err != nil {
				return err
			}
			u, creds, err := e.consoleAs(consoleURL)
			if err != nil {
				return err
			}
			c, err := (&remote.Client{URL: u, Token: creds.Token}).Enqueue(cmd.Context(), o)
			if err != nil {
				return err
			}
			if c.Resume != "" {
				fmt.Fprintf(e.stdout, "queued instruction %d on %s for %s: it resumes session %s\n", c.ID, c.Repo, c.Target, c.Resume)
				return nil
			}
			fmt.Fprintf(e.stdout, "queued instruction %d on %s for %s\n", c.ID, c.Repo, c.Target)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Repo, "repo", "", "the repository, owner/name (required; with --resume, the session's own)")
	fl.StringVar(&o.Resume, "resume", "", "continue this session of the machine that runs serve instead of starting one")
	fl.Float64Var(&o.Limits.BudgetUSD, "budget-usd", 0, "the most the run may spend, in dollars (serve needs a price); with --resume, a top-up: this much more")
	fl.IntVar(&o.Limits.MaxTurns, "max-turns", 0, "the run's limit of turns, 1 to 200 (default: serve's)")
	fl.DurationVar(&timeout, "timeout", 0, "the run's limit of time, such as 45m, at most 24h (default: serve's)")
	fl.StringVar(&consoleURL, "console-url", "", "the console (default $CORE_CONSOLE_URL)")
	return cmd
}

// checkOrder refuses, before anything is sent, an order the console would
// refuse for its form.
func checkOrder(o remote.Order, timeout time.Duration) error {
	switch {
	case !gh.IsRepoName(o.Repo):
		return fmt.Errorf("--repo must be owner/name, got %q", o.Repo)
	case strings.TrimSpace(o.Instruction) == "":
		return errors.New("the instruction is empty: say what to do")
	case o.Resume != "" && !session.ValidID(o.Resume):
		return fmt.Errorf("--resume must be a session id (core session list shows them), got %q", o.Resume)
	case !(o.Limits.BudgetUSD >= 0) || math.IsInf(o.Limits.BudgetUSD, 0):
		return fmt.Errorf("--budget-usd must be an amount of dollars, got %v", o.Limits.BudgetUSD)
	case o.Limits.MaxTurns < 0:
		return fmt.Errorf("--max-turns must be 1 or more, got %d", o.Limits.MaxTurns)
	case timeout < 0:
		return fmt.Errorf("--timeout must be a duration such as 45m, got %s", timeout)
	}
	return nil
}

// serveFlags are serve's flags: a session's, and serve's own.
type serveFlags struct {
	session         sessionFlags
	repos           []string
	once, allowLand bool
	verifyAudit     bool
	pollWait        time.Duration
	auditFile       string
}

func newSessionServeCmd(e *env) *cobra.Command {
	var s serveFlags
	cmd := &cobra.Command{
		Use:   "serve --repo OWNER/NAME [--repo OWNER/NAME...] [flags]",
		Short: "Run the instructions queued for you on the console, on this machine",
		Long: `serve long-polls the console (--console-url or CORE_CONSOLE_URL) as the user of
core auth login and runs each instruction queued for you as a session, one at
a time, on the --repo repositories only: an instruction for any other is
refused. Nobody is at this terminal: every gated tool (run_shell, file_issue)
is denied; verification commands still run confined under --verify. Without
--allow-land the work is kept in the workspace and nothing is pushed. Every
claim and result goes to a hash-chained audit trail (--audit-file), and each
result carries the trail's head to the console, which keeps it; --verify-audit
checks the chain and compares it with the console's copies, so a trail edited
with every later hash recomputed is caught (without the console, the check is
local only and says so). SIGTERM ends a running session and releases its
claim back to the queue. --once exits once its instruction's run ends: at
done, unless --idle-timeout is given. A top-up queued from the console's
page of a run whose budget ran out resumes that session of this machine, as
core session resume ID "instruction" --budget-usd N does.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.serve(cmd, &s)
		},
	}
	s.bind(cmd)
	return cmd
}

// serve checks serve's flags, then runs the instructions the console
// hands it until its context ends (or one, with --once).
func (e *env) serve(cmd *cobra.Command, sf *serveFlags) error {
	f, repos, auditFile := &sf.session, sf.repos, sf.auditFile
	home, err := setup.Home(e.getenv, "")
	if err != nil {
		return err
	}
	if auditFile == "" {
		auditFile = filepath.Join(home, "serve-audit.jsonl")
	}
	if sf.verifyAudit {
		return e.verifyAudit(cmd.Context(), auditFile, f.consoleURL)
	}
	if len(repos) == 0 {
		return errors.New("--repo is required: name each repository (owner/name) this machine may run instructions for")
	}
	for _, r := range repos {
		if !gh.IsRepoName(r) || strings.ContainsAny(r, "*?") {
			return fmt.Errorf("--repo must be owner/name (no wildcards), got %q", r)
		}
	}
	u, creds, err := e.consoleAs(f.consoleURL)
	if err != nil {
		return err
	}
	if err := setup.Check(f.vals); err != nil {
		return setup.Word(err, setup.FlagWording)
	}
	client := &remote.Client{URL: u, Token: creds.Token}
	s := &remote.Serve{
		Console: client, Repos: repos, Once: sf.once, PollWait: sf.pollWait, Out: e.stderr,
		Audit: &remote.Audit{Path: auditFile},
		Run: func(ctx context.Context, c *remote.Command) remote.Result {
			return e.serveOne(ctx, cmd, sf, creds, client, c)
		},
	}
	fmt.Fprintf(e.stderr, "serve: %s as %s, for %s\n", u, creds.Login, strings.Join(repos, ", "))
	if !sf.allowLand {
		fmt.Fprintln(e.stderr, "serve: without --allow-land nothing is pushed: the work stays in the workspace")
	}
	return s.Loop(cmd.Context())
}

// bind declares serve's flags.
func (f *serveFlags) bind(cmd *cobra.Command) {
	f.session.register(cmd, true)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.repos, "repo", nil, "a repository (owner/name) instructions may run on; repeat for more (required)")
	fl.BoolVar(&f.once, "once", false, "run one queued instruction, then exit: its run completes at done unless --idle-timeout is given, which keeps it waiting that long for messages from its page first")
	fl.BoolVar(&f.allowLand, "allow-land", false, "land the work as a commit and a draft pull request (default: keep it unpushed)")
	fl.DurationVar(&f.pollWait, "poll-wait", 25*time.Second, "how long each long-poll of the console waits")
	fl.StringVar(&f.auditFile, "audit-file", "", "the hash-chained audit trail (default $CORE_HOME/serve-audit.jsonl)")
	fl.BoolVar(&f.verifyAudit, "verify-audit", false, "check the audit trail's chain against itself and the console's anchors, name the first bad line, and exit")
}

// serveDefaults are serve's own limits, below the flags and environment.
// A person queued the instruction: the landed run waits IdleAttended for
// their next message from the run's page.
var serveDefaults = map[string]string{setup.MaxTurns: "12", setup.Timeout: "45m", setup.TurnTimeout: "12m",
	setup.IdleTimeout: session.IdleAttended.String()}

// commandFlags are the session flags and defaults one instruction runs
// with: serve's flags, the limits the instruction asks for, without
// --allow-land a dry run, and, for one that resumes a session of this
// machine (a top-up), the session's model, verify tier and endpoint, as
// core session resume takes them.
func (e *env) commandFlags(sf *serveFlags, c *remote.Command) (sessionFlags, map[string]string, error) {
	one := sf.session
	one.vals = maps.Clone(sf.session.vals)
	if one.vals == nil {
		one.vals = setup.Values{}
	}
	if c.Limits.MaxTurns > 0 {
		one.vals[setup.MaxTurns] = strconv.Itoa(c.Limits.MaxTurns)
	}
	if c.Limits.Timeout != "" {
		one.vals[setup.Timeout] = c.Limits.Timeout
	}
	if c.Limits.BudgetUSD > 0 {
		one.vals[setup.BudgetUSD] = strconv.FormatFloat(c.Limits.BudgetUSD, 'f', -1, 64)
	}
	if !sf.allowLand {
		one.vals[setup.DryRun] = "true"
	}
	one.interactive = false
	defaults := maps.Clone(serveDefaults)
	if sf.once {
		// --once ends after its instruction's run: it completes at done,
		// unless --idle-timeout (or CORE_SESSION_IDLE_TIMEOUT) says to
		// wait for messages from its page.
		defaults[setup.IdleTimeout] = "0"
	}
	if c.Resume == "" {
		return one, defaults, nil
	}
	rec, err := e.loadSession(c.Resume)
	if err != nil {
		return one, nil, err
	}
	if rec.Repo != c.Repo {
		return one, nil, fmt.Errorf("session %s is on %s, not on %s: a top-up resumes the session on its own repository", c.Resume, rec.Repo, c.Repo)
	}
	one.vals[setup.Model], one.vals[setup.Verify] = rec.Model, string(rec.Verify)
	defaults[setup.InferenceURL] = rec.InferenceURL
	return one, defaults, nil
}

// serveOptions are the options of one instruction's session
// (commandFlags), the gate denying everything and no terminal.
func (e *env) serveOptions(cmd *cobra.Command, sf *serveFlags, c *remote.Command) (session.Options, error) {
	one, defaults, err := e.commandFlags(sf, c)
	if err != nil {
		return session.Options{}, err
	}
	o, err := e.options(cmd, &one, defaults)
	if err != nil {
		return o, err
	}
	o.Live.AskNext = false // nobody is at this terminal
	o.Services.Approver = tools.DenyApprover{}
	o.Services.Input = strings.NewReader("")
	return o, nil
}

// serveOne runs one instruction as a session (serveOptions): the
// repository's token is the signed-in user's, and it lands only with
// --allow-land.
func (e *env) serveOne(ctx context.Context, cmd *cobra.Command, sf *serveFlags, creds *auth.Credentials, client *remote.Client, c *remote.Command) remote.Result {
	o, err := e.serveOptions(cmd, sf, c)
	if err != nil {
		return remote.Result{Status: remote.Failed, Error: err.Error()}
	}
	ghc, err := gh.New(gh.Credentials{Token: creds.Token, APIURL: creds.APIURL}, nil)
	if err != nil {
		return remote.Result{Status: remote.Failed, Error: err.Error()}
	}
	setup.AddGitHub(&o, ghc)
	o.Goal.Repo, o.Goal.Prompt = c.Repo, c.Instruction
	// The run is followed and steered from its page on the console: its
	// events go up as they happen, its starter's messages come down.
	o.Goal.ID, o.Live.Control = cmp.Or(c.Resume, session.NewID(time.Now())), live.NewControl()
	o.Landing.RunURL = consoleRunURL(client.URL, o.Goal.ID)
	live := &remote.Live{Console: client, Store: o.Services.Store, ID: o.Goal.ID, Repo: c.Repo, Control: o.Live.Control, Out: e.stderr}
	finish := live.Start(ctx)
	var rep *session.Report
	if c.Resume != "" {
		// The top-up is the command's, never the flags' budget again.
		o.Limits.Budget.USD, o.Limits.Budget.Tokens = c.Limits.BudgetUSD, 0
		rep, err = session.Resume(ctx, c.Resume, c.Instruction, o)
	} else {
		rep, err = session.Run(ctx, o)
	}
	finish()
	if rep == nil {
		if ctx.Err() != nil {
			return remote.Result{Status: remote.Released, Error: "serve stopped before the session started"}
		}
		return remote.Result{Status: remote.Failed, Error: fmt.Sprint(err)}
	}
	rep.WriteSummary(e.stderr)
	writeReceiptLine(e.stderr, rep, o.Services.Store.Dir(rep.ID))
	workspace := "the session's workspace"
	d, derr := e.delivery(client.URL)
	if derr == nil {
		workspace = d.Store.WorkspaceDir(rep.ID)
		d.Console.Token = creds.Token
		if derr = d.Deliver(context.WithoutCancel(ctx), rep.ID); derr != nil {
			fmt.Fprintf(e.stderr, "report: %v\n", derr)
		}
	}
	res := remote.Result{Summary: rep.Summary, PRURL: rep.PRURL, SessionID: rep.ID, Error: rep.Error}
	if rep.Contract != nil {
		res.Contract, _ = json.Marshal(rep.Contract)
	}
	switch {
	case ctx.Err() != nil:
		res.Status = remote.Released
		res.Error = "serve was stopped (SIGTERM): the instruction goes back to the queue"
	case rep.Status.Succeeded():
		res.Status = remote.Succeeded
		if !sf.allowLand {
			fmt.Fprintf(e.stderr, "serve: not landed (no --allow-land): the work is in %s, nothing was pushed\n", workspace)
		}
	default:
		res.Status = remote.Failed
		if res.Error == "" {
			res.Error = "the session ended " + string(rep.Status)
		}
	}
	return res
}
