package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
)

// Boxer gives the workspace's box, where background commands run;
// *sandbox.Sandbox implements it.
type Boxer interface {
	Box(ctx context.Context, workspace string) (*sandbox.Box, error)
}

var _ Boxer = (*sandbox.Sandbox)(nil)

// firstOutputWait is how long run_shell waits for a background command's
// first output (or its early end: a port in use) before it answers.
const firstOutputWait = time.Second

// boxFor returns the workspace's box for command, after the approval the
// tier asks for; nil with the answer for the model when there is none.
func (t runShell) boxFor(ctx context.Context, env *Env, command, how string) (*sandbox.Box, *Result, error) {
	boxer, ok := env.Runner.(Boxer)
	if !ok {
		return nil, &Result{Output: "run_shell: " + how + " commands need the sandbox's box, which this session has not; run the command without it.", Target: command}, nil
	}
	// The test tier runs workspace code confined unattended: a command in
	// the box is no more than that.
	if env.Tier != lang.TierTest {
		approver := env.Approver
		if approver == nil {
			approver = DenyApprover{}
		}
		ok, err := approver.Approve(ctx, "run_shell ("+how+", confined in the box): "+command)
		if err != nil {
			return nil, nil, fmt.Errorf("run_shell: ask for approval: %w", err)
		}
		if !ok {
			return nil, &Result{Output: Declined, Target: command, Failed: Declined}, nil
		}
	}
	box, err := boxer.Box(ctx, env.Workspace.Root())
	if err != nil {
		if errors.Is(err, sandbox.ErrNoBox) || !errors.Is(err, ctx.Err()) {
			return nil, &Result{Output: fmt.Sprintf("run_shell: %s commands need the sandbox's box: %v. Run the command without it.", how, err), Target: command}, nil
		}
		return nil, nil, fmt.Errorf("run_shell %q: %w", command, err)
	}
	return box, nil, nil
}

// inBox runs command in the foreground in the workspace's box, where it
// reaches the background commands.
func (t runShell) inBox(ctx context.Context, env *Env, command string) (Result, error) {
	box, answer, err := t.boxFor(ctx, env, command, "box")
	if box == nil {
		return *answerOr(answer), err
	}
	argv := []string{"bash", "-c", command}
	run := func() (sandbox.Result, error) {
		return box.Run(ctx, argv, sandbox.RunOptions{
			Timeout:      env.ShellTimeout,
			BuildCeiling: env.buildCeiling(),
			OutputLimit:  max(env.outputLimit()-exitLineRoom, env.outputLimit()/2),
			Progress:     env.Progress,
		})
	}
	var r sandbox.Result
	if t, ok := env.Runner.(teller); ok {
		r, err = t.tell(ctx, argv, run)
	} else {
		r, err = run()
	}
	if err != nil {
		return Result{}, fmt.Errorf("run_shell %q: %w", command, err)
	}
	return shellResult(command, r, env, false), nil
}

func answerOr(r *Result) *Result {
	if r == nil {
		return &Result{}
	}
	return r
}

// background starts command in the workspace's box and answers with its id.
func (t runShell) background(ctx context.Context, env *Env, command string) (Result, error) {
	box, answer, err := t.boxFor(ctx, env, command, "background")
	if box == nil {
		return *answerOr(answer), err
	}
	p, err := box.Start(ctx, []string{"bash", "-c", command}, sandbox.StartOptions{OutputLimit: env.outputLimit() / 2})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{Output: fmt.Sprintf("run_shell: %q did not start in the background: %v", command, err), Target: command}, nil
	}
	t0 := time.NewTimer(firstOutputWait)
	defer t0.Stop()
	select {
	case <-p.Done():
	case <-t0.C:
	case <-ctx.Done():
	}
	return Result{Output: describeProcess(p, "started "+p.ID()+" in the background"), Target: command}, nil
}

// process shows a background process's output, after stopping it when stop.
func (t runShell) process(ctx context.Context, env *Env, id string, stop bool) (Result, error) {
	id = strings.TrimSpace(id)
	boxer, ok := env.Runner.(Boxer)
	if !ok {
		return Result{Output: "run_shell: this session runs no background commands.", Target: id}, nil
	}
	box, err := boxer.Box(ctx, env.Workspace.Root())
	if err != nil {
		return Result{Output: fmt.Sprintf("run_shell: no background commands here: %v", err), Target: id}, nil
	}
	p := box.Process(id)
	if p == nil {
		var ids []string
		for _, q := range box.Processes() {
			ids = append(ids, q.ID())
		}
		slices.Sort(ids)
		known := "none runs"
		if len(ids) > 0 {
			known = "the ids are " + strings.Join(ids, ", ")
		}
		return Result{Output: fmt.Sprintf("run_shell: no background command %q (%s).", id, known), Target: id}, nil
	}
	head := id
	if stop {
		if err := p.Stop(ctx); err != nil {
			return Result{}, fmt.Errorf("run_shell: stop %s: %w", id, err)
		}
		head = "stopped " + id
	}
	return Result{Output: describeProcess(p, head), Target: id}, nil
}

// describeProcess is a background process's state and output, for the
// model.
func describeProcess(p *sandbox.Process, head string) string {
	out, running, code := p.Output()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", head, commandText(p.Argv()))
	switch {
	case running:
		fmt.Fprintf(&b, "still running (read its output later with output: %s, end it with stop: %s)\n", p.ID(), p.ID())
	case p.Limit() != "":
		fmt.Fprintf(&b, "stopped by core: it broke the sandbox's %s limit (the end of its output says by how much and how to raise it)\n", p.Limit())
	default:
		fmt.Fprintf(&b, "ended, exit status %d\n", code)
	}
	if out == "" {
		b.WriteString("(no output yet)")
	} else {
		b.WriteString("output so far:\n" + out)
	}
	return b.String()
}

// processLister lists the background processes of the workspace's box
// without starting one; *sandbox.Sandbox implements it.
type processLister interface {
	BackgroundProcesses(workspace string) []*sandbox.Process
}

var _ processLister = (*sandbox.Sandbox)(nil)

// listedMax bounds how many background processes a reply lists, and
// listedWidth how much of each one's command.
const (
	listedMax   = 20
	listedWidth = 120
)

// backgroundList is the list of the box's background processes that ends
// every run_shell reply, "" when there are none.
func backgroundList(env *Env) string {
	l, ok := env.Runner.(processLister)
	if !ok || env.Workspace == nil {
		return ""
	}
	procs := l.BackgroundProcesses(env.Workspace.Root())
	if len(procs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nBackground commands in the box (core ends them all at done; read one with output: ID, end one with stop: ID):\n")
	for i, p := range procs {
		if i == listedMax {
			fmt.Fprintf(&b, "  and %d more\n", len(procs)-i)
			break
		}
		_, running, code := p.Output()
		state := fmt.Sprintf("ended, exit status %d", code)
		switch {
		case running:
			state = "running"
		case p.Limit() != "":
			state = "stopped by core at its " + p.Limit() + " limit"
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", p.ID(), state, commandText(p.Argv()))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// commandText is a background process's command for the model: what
// run_shell gave bash, else its argv; cut at listedWidth.
func commandText(argv []string) string {
	s := strings.Join(argv, " ")
	if len(argv) == 3 && argv[0] == "bash" && argv[1] == "-c" {
		s = argv[2]
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > listedWidth {
		s = strings.ToValidUTF8(s[:listedWidth], "") + "..."
	}
	return s
}
