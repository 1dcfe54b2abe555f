package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
)

// exitLineRoom is the part of the output limit kept for run_shell's own
// last line, so that the command's capped output and it fit together.
const exitLineRoom = 256

type runShell struct{}

func (runShell) Name() string { return "run_shell" }

func (runShell) Doc() string {
	return `run_shell: run a shell command in the workspace root (bash -c).
  tool: run_shell
  command: go test ./...
  background: false
  box: false
  output: null
  stop: null
Plain verification commands in the repository's own language (the rules
list which; no pipes, quotes or other shell syntax) may run unattended,
confined in the sandbox. Every other command waits for a human
to approve it and may be declined. The reply is the command's output and its
exit status.
Background: with background: true the command starts in the sandbox's box
and keeps running (a server, a watcher); the reply gives its id (p1, ...)
and its first output. Commands confined in the same box reach what it
serves on 127.0.0.1 or localhost: the verification commands, and any
command given with box: true (command: curl -s localhost:8080/health
with box: true); a command run on the host does not.
Read what it printed since with output: p1 (no command), end it with
stop: p1 (no command). So background is optional, box is optional,
output is optional, stop is optional,
and command is optional with output or stop. Commands in the box have no
network but the box's loopback; one the rules would not run unattended
needs a human's approval first.
Every process a command starts ends with the command, even one it
detached (setsid, nohup, a daemon): only a background: true command
outlives its command. Every reply lists the background commands and
whether they still run. They are ended at done (and when the session
ends), before core checks the result: start nothing at the end that the
result needs. A background command is held to the sandbox's limits
(memory, processes, workspace growth): one that breaks a limit is
stopped, and its output says which limit.`
}

func (t runShell) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	r, err := t.run(ctx, env, args)
	if err == nil {
		r.Output += backgroundList(env)
	}
	return r, err
}

func (t runShell) run(ctx context.Context, env *Env, args Args) (Result, error) {
	if id, err := args.OptionalString("output", ""); err != nil {
		return fail(t.Name(), err)
	} else if id != "" {
		return t.process(ctx, env, id, false)
	}
	if id, err := args.OptionalString("stop", ""); err != nil {
		return fail(t.Name(), err)
	} else if id != "" {
		return t.process(ctx, env, id, true)
	}
	background, err := args.OptionalBool("background", false)
	if err != nil {
		return fail(t.Name(), err)
	}
	command, err := args.String("command")
	if err != nil {
		return fail(t.Name(), err)
	}
	command = strings.TrimSpace(command)
	if command == "" {
		return fail(t.Name(), &ArgError{Arg: "command", Msg: "must not be empty"})
	}
	if why := refusal(command); why != "" {
		return Result{Output: fmt.Sprintf("run_shell: refused %q: %s. It will not run; do something else.", command, why), Target: command, Failed: "refused: " + why}, nil
	}
	if env.Runner == nil {
		return Result{}, errors.New("run_shell: no command runner configured")
	}
	inBox, err := args.OptionalBool("box", false)
	if err != nil {
		return fail(t.Name(), err)
	}
	if background {
		return t.background(ctx, env, command)
	}
	if inBox {
		return t.inBox(ctx, env, command)
	}
	opts := sandbox.RunOptions{
		Workspace:    env.Workspace.Root(),
		Timeout:      env.ShellTimeout,
		BuildCeiling: env.buildCeiling(),
		OutputLimit:  max(env.outputLimit()-exitLineRoom, env.outputLimit()/2),
		Progress:     env.Progress,
	}
	if env.Tier == lang.TierBuild || env.Tier == lang.TierTest {
		if argv, err := lang.SplitCommand(command); err == nil && lang.Check(env.Tier, argv).Allowed() {
			r, err := env.Runner.Verify(ctx, env.Tier, argv, opts)
			var refused *sandbox.RefusedError
			if errors.As(err, &refused) {
				return Result{Output: fmt.Sprintf("run_shell: %s may not run unattended here: %s", command, refused.Reason), Target: command, Failed: "may not run unattended: " + refused.Reason}, nil
			}
			if err != nil {
				return Result{}, fmt.Errorf("run_shell %q: %w", command, err)
			}
			return shellResult(command, r, env, true), nil
		}
	}
	ok, err := approve(ctx, env, command)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{Output: Declined, Target: command, Failed: Declined}, nil
	}
	if env.Echo != nil {
		opts.Progress = teeWriters(env.Progress, env.Echo)
	}
	r, err := env.Runner.RunHost(ctx, []string{"bash", "-c", command}, opts)
	if err != nil {
		return Result{}, fmt.Errorf("run_shell %q: %w", command, err)
	}
	// A verification command a human approved ran all the same: record it.
	argv, err := lang.SplitCommand(command)
	verification := err == nil && lang.Check(lang.TierTest, argv).Allowed()
	return shellResult(command, r, env, verification), nil
}

// approve asks the run's approver (without one, the answer is no) whether
// command may run on the host, outside the sandbox.
func approve(ctx context.Context, env *Env, command string) (bool, error) {
	approver := env.Approver
	if approver == nil {
		approver = DenyApprover{}
	}
	ok, err := approver.Approve(ctx, "run_shell: "+command)
	if err != nil {
		return false, fmt.Errorf("run_shell: ask for approval: %w", err)
	}
	return ok, nil
}

// shellResult turns what a command did into run_shell's answer. Any
// command may have changed the workspace and run_shell cannot tell, so
// Changed is set. A command core killed at the shell timeout says so
// plainly, with where its time went and what to do instead
// (run_shell_timeout.go).
func shellResult(command string, r sandbox.Result, env *Env, verification bool) Result {
	timeout := env.ShellTimeout
	var b strings.Builder
	b.WriteString(r.Output)
	if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "exit status %d", r.ExitCode)
	if r.Sandboxed {
		b.WriteString(" (sandboxed)")
	}
	res := Result{Target: command}
	switch {
	case r.TimedOut && r.Setup:
		b.WriteString(" (core's module download for it ran past its own timeout, above; the command did not run)")
	case r.TimedOut:
		b.WriteString("\n" + killed(command, r, timeout, env.buildCeiling()))
		res.Note = fmt.Sprintf("core killed %q: it ran past the shell timeout of %s (--shell-timeout)%s%s", command, timeout, builtNote(r, env.buildCeiling()), waitedNote(r.Waited))
	case r.Waited > 0:
		fmt.Fprintf(&b, " (it first waited %s for the module download core's warm-up had under way; the wait did not count against the %s shell timeout)", round(r.Waited), timeout)
	}
	res.Output = b.String()
	if verification {
		res.Verification = &Verification{Command: command, ExitCode: r.ExitCode, Sandboxed: r.Sandboxed, Duration: r.Duration}
	}
	return res
}

// round rounds a duration for people: to the second, below one to the
// millisecond.
func round(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

func waitedNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(", after waiting %s for the module download under way (not counted)", round(d))
}

// teeWriters writes to every writer that is set. A writer that fails is
// ignored: showing output must never break the command producing it.
func teeWriters(ws ...io.Writer) io.Writer {
	var set []io.Writer
	for _, w := range ws {
		if w != nil {
			set = append(set, lenient{w})
		}
	}
	return io.MultiWriter(set...)
}

// lenient is a writer whose failures are dropped.
type lenient struct{ w io.Writer }

func (l lenient) Write(p []byte) (int, error) {
	_, _ = l.w.Write(p)
	return len(p), nil
}
