package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/tools"
	"github.com/coreagent/core/setup"
)

// mcpTools are core mcp's tools, each a method with its own typed input.
type mcpTools struct {
	e   *env // stdin empty, stdout to stderr: the protocol's are apart
	m   *mcpServer
	cmd *cobra.Command
	// runCtx is the context of the runs started here: it outlives each
	// tool call and ends when core mcp does.
	runCtx context.Context
}

// register adds the tools to srv; their input schemas come from the
// input structs.
func (t *mcpTools) register(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "start_session", Description: "Start a coding session on a repository, as core session start does (same options, defaults and pre-flight). Returns the session's id once the run has started; it goes on after this call returns. A run refused at pre-flight is an error with the text core session start prints."}, t.start)
	mcp.AddTool(srv, &mcp.Tool{Name: "resume_session", Description: "Continue a session whose run has ended (completed, failed, cancelled, budget_exhausted, ...) with a new instruction, as core session resume does: its transcript and workspace are kept, its model and verify tier are its own, a budget given is a top-up. Returns once the run has started again; follow it with follow_session."}, t.resume)
	mcp.AddTool(srv, &mcp.Tool{Name: "list_sessions", Description: "List the sessions of this machine on the allowed repositories, newest first, as core session list --json tells them."}, t.list)
	mcp.AddTool(srv, &mcp.Tool{Name: "follow_session", Description: "A session's events (lines of its events.jsonl) after a cursor. While the run lives and has nothing new it waits up to wait_seconds for more. Call again with next until ended is true. With a progress token, the call streams each event as a progress notification as it is written and returns at wait_seconds, at the run's end or with max events."}, t.follow)
	mcp.AddTool(srv, &mcp.Tool{Name: "send_message", Description: "Send a live session a message, as core session send does: an active run reads it before its next turn, an idle one takes it at once."}, t.send)
	mcp.AddTool(srv, &mcp.Tool{Name: "interrupt_session", Description: "Interrupt a live session's current turn, as core session interrupt does: it keeps its work and goes idle."}, t.interrupt)
	mcp.AddTool(srv, &mcp.Tool{Name: "stop_session", Description: "End a live session now, as core session stop does: it ends cancelled, its work kept in the workspace."}, t.stop)
	mcp.AddTool(srv, &mcp.Tool{Name: "land_session", Description: "Land the work of a session whose model called done, as core session land does (no model turn). Only when core mcp runs with --allow-land."}, t.land)
	mcp.AddTool(srv, &mcp.Tool{Name: "read_report", Description: "A session's report (its report.json), once its run has ended."}, t.report)
}

// startIn are start_session's arguments: core session start's flags.
type startIn struct {
	Repo   string `json:"repo" jsonschema:"the repository: owner/name on GitHub or a local git repository's directory; one core mcp's --repo allows"`
	Prompt string `json:"prompt,omitempty" jsonschema:"the goal, in words (or give issue)"`
	Issue  int    `json:"issue,omitempty" jsonschema:"take the goal from this issue (GitHub repositories)"`
	Base   string `json:"base,omitempty" jsonschema:"branch or commit to start from (default: the repository's default branch)"`
	Branch string `json:"branch,omitempty" jsonschema:"branch to land on (default: core-session/<id>)"`
	Clean  bool   `json:"clean,omitempty" jsonschema:"start a local repository's session from HEAD alone, leaving out its uncommitted changes"`
	// Settings are the other flags of core session start.
	Settings map[string]string `json:"settings,omitempty" jsonschema:"any other flag of core session start, by its name without dashes, with its value as the flag takes it: model, verify, budget-usd, max-turns, timeout, idle-timeout, dry-run, ..."`
}

// resumeIn are resume_session's arguments.
type resumeIn struct {
	ID          string `json:"id" jsonschema:"the session's id"`
	Instruction string `json:"instruction" jsonschema:"what to do next, as core session resume takes it"`
	// Settings are the other flags of core session resume.
	Settings map[string]string `json:"settings,omitempty" jsonschema:"any other flag of core session resume, by its name without dashes: budget-usd and budget-tokens (a top-up), max-turns, timeout, dry-run, ..."`
}

// startOut is what start_session returns.
type startOut struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// sessionValues are in's settings as setup's values, each checked to be
// a flag of core session start.
func sessionValues(in startIn) (setup.Values, error) {
	flags := map[string]bool{}
	for _, s := range setup.Settings() {
		if s.Flag {
			flags[s.Name] = true
		}
	}
	vals := setup.Values{}
	for _, name := range slices.Sorted(maps.Keys(in.Settings)) {
		if !flags[name] {
			return nil, fmt.Errorf("settings: %q is not a flag of core session start (core session start --help lists them; give the name without dashes, e.g. budget-usd)", name)
		}
		vals[name] = in.Settings[name]
	}
	return vals, nil
}

// start starts a session as core session start does, in the
// background, and returns its id once the run has started, or the error
// the CLI would print.
func (t *mcpTools) start(ctx context.Context, _ *mcp.CallToolRequest, in startIn) (*mcp.CallToolResult, any, error) {
	if in.Repo == "" {
		return nil, nil, errors.New("--repo is required: owner/name on GitHub, or a local path to a git repository")
	}
	if strings.TrimSpace(in.Prompt) == "" && in.Issue == 0 {
		return nil, nil, errors.New("a goal is required: give --prompt TEXT (or --issue N)")
	}
	if err := checkRepo(in.Repo); err != nil {
		return nil, nil, err
	}
	if !repoAllowed(t.m.allow, in.Repo) {
		return nil, nil, t.m.refusedRepo(in.Repo)
	}
	repo := in.Repo
	if p, ok := localRepo(repo); ok {
		repo = p
	}
	vals, err := sessionValues(in)
	if err != nil {
		return nil, nil, err
	}
	if !t.m.allowLand {
		vals[setup.DryRun] = "true"
	}
	f := sessionFlags{vals: vals}
	o, err := t.e.newOptions(t.cmd, &f, repo)
	if err != nil {
		return nil, nil, err
	}
	unattended(&o)
	o.Goal.Repo, o.Goal.Prompt, o.Goal.Issue, o.Goal.Base, o.Goal.Branch, o.Goal.Clean = repo, in.Prompt, in.Issue, in.Base, in.Branch, in.Clean
	o.Goal.ID = session.NewID(time.Now())
	return t.begin(ctx, o, repo, session.Run)
}

// resume resumes an ended session as core session resume does, in the
// background, and returns once its run has started again.
func (t *mcpTools) resume(ctx context.Context, _ *mcp.CallToolRequest, in resumeIn) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Instruction) == "" {
		return nil, nil, errors.New("resume needs an instruction: what to do next")
	}
	_, rec, err := t.session(in.ID)
	if err != nil {
		return nil, nil, err
	}
	if rec.Status.Live() {
		return nil, nil, fmt.Errorf("session %s is %s: its run goes on (send_message steers it, stop_session ends it)", in.ID, rec.Status)
	}
	vals, err := sessionValues(startIn{Settings: in.Settings})
	if err != nil {
		return nil, nil, err
	}
	if !t.m.allowLand {
		vals[setup.DryRun] = "true"
	}
	f := sessionFlags{vals: vals}
	o, err := t.e.resumeOptions(t.cmd, &f, rec)
	if err != nil {
		return nil, nil, setup.Word(err, setup.FlagWording)
	}
	unattended(&o)
	o.Goal.ID = in.ID
	return t.begin(ctx, o, rec.Repo, func(ctx context.Context, o session.Options) (*session.Report, error) {
		return session.Resume(ctx, in.ID, in.Instruction, o)
	})
}

// unattended makes o a run nobody is at a terminal for: the gate
// denies, as under serve, and nothing is printed.
func unattended(o *session.Options) {
	o.Live.Interactive, o.Live.AskNext = false, false
	o.Services.Approver, o.Services.Input = tools.DenyApprover{}, strings.NewReader("")
	o.Services.Output, o.Live.Progress = io.Discard, io.Discard
}

// runFunc runs a session with its options, as session.Run does.
type runFunc func(context.Context, session.Options) (*session.Report, error)

// begin launches run with o (session o.Goal.ID's) and returns once it
// has started, or the error of a run refused before it did.
func (t *mcpTools) begin(ctx context.Context, o session.Options, repo string, run runFunc) (*mcp.CallToolResult, any, error) {
	ended := t.launch(o, repo, run)
	if err := t.started(ctx, o.Services.Store, o.Goal.ID, ended); err != nil {
		return nil, nil, err
	}
	out := startOut{ID: o.Goal.ID, Status: "starting"}
	if rec, err := o.Services.Store.Load(out.ID); err == nil {
		out.Status = string(rec.Status)
	}
	return nil, out, nil
}

// runEnd is how a run started here ended: its report, or the error of a
// run that never started.
type runEnd struct {
	rep *session.Report
	err error
}

// launch runs o in the background under runCtx, live on the console
// and reported there as the CLI's runs are; the channel gets its end.
func (t *mcpTools) launch(o session.Options, repo string, run runFunc) <-chan runEnd {
	ended := make(chan runEnd, 1)
	t.m.runs.Add(1)
	go func() {
		defer t.m.runs.Done()
		finish := t.e.live(t.runCtx, "", &o, repo)
		rep, err := run(t.runCtx, o)
		finish()
		t.e.report(t.runCtx, "", rep, repo)
		if rep != nil {
			fmt.Fprintf(t.e.stderr, "core mcp: session %s: %s\n", rep.ID, rep.Status)
		}
		ended <- runEnd{rep: rep, err: setup.Word(err, setup.FlagWording)}
	}()
	return ended
}

// started waits until session id's run has started (its record is past
// pending) or ended, and says which; a run refused before it started is
// its error.
func (t *mcpTools) started(ctx context.Context, store *session.Store, id string, ended <-chan runEnd) error {
	tick := time.NewTicker(live.WatchEvery)
	defer tick.Stop()
	for {
		select {
		case end := <-ended:
			if end.err != nil {
				return end.err
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("session %s: the call ended before the run started (it goes on: list_sessions shows it)", id)
		case <-tick.C:
			if rec, err := store.Load(id); err == nil && rec.Status.Live() {
				return nil
			}
		}
	}
}
