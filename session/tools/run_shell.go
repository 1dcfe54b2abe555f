package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox"
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
Plain verification commands (go build, go vet, gofmt -l, and go test when
the run allows tests; no pipes, quotes or other shell syntax) may run
unattended, confined in the sandbox. Every other command waits for a human
to approve it and may be declined. The reply is the command's output and its
exit status.`
}

func (t runShell) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	command, err := args.String("command")
	if err != nil {
		return fail(t.Name(), err)
	}
	command = strings.TrimSpace(command)
	if command == "" {
		return fail(t.Name(), &ArgError{Arg: "command", Msg: "must not be empty"})
	}
	if why := refusal(command); why != "" {
		return Result{Output: fmt.Sprintf("run_shell: refused %q: %s. It will not run; do something else.", command, why), Target: command}, nil
	}
	if env.Runner == nil {
		return Result{}, errors.New("run_shell: no command runner configured")
	}
	opts := sandbox.RunOptions{
		Workspace:   env.Workspace.Root(),
		Timeout:     env.ShellTimeout,
		OutputLimit: max(env.outputLimit()-exitLineRoom, env.outputLimit()/2),
		Progress:    env.Progress,
	}
	if env.Tier == sandbox.TierBuild || env.Tier == sandbox.TierTest {
		if argv, err := sandbox.SplitCommand(command); err == nil && sandbox.Check(env.Tier, argv).Allowed() {
			r, err := env.Runner.Verify(ctx, env.Tier, argv, opts)
			var refused *sandbox.RefusedError
			if errors.As(err, &refused) {
				return Result{Output: fmt.Sprintf("run_shell: %s may not run unattended here: %s", command, refused.Reason), Target: command}, nil
			}
			if err != nil {
				return Result{}, fmt.Errorf("run_shell %q: %w", command, err)
			}
			return shellResult(command, r, env.ShellTimeout, true), nil
		}
	}
	approver := env.Approver
	if approver == nil {
		approver = DenyApprover{}
	}
	ok, err := approver.Approve(ctx, "run_shell: "+command)
	if err != nil {
		return Result{}, fmt.Errorf("run_shell: ask for approval: %w", err)
	}
	if !ok {
		return Result{Output: Declined, Target: command}, nil
	}
	if env.Echo != nil {
		opts.Progress = teeWriters(env.Progress, env.Echo)
	}
	r, err := env.Runner.RunHost(ctx, []string{"bash", "-c", command}, opts)
	if err != nil {
		return Result{}, fmt.Errorf("run_shell %q: %w", command, err)
	}
	// A verification command a human approved ran all the same: record it.
	argv, err := sandbox.SplitCommand(command)
	verification := err == nil && sandbox.Check(sandbox.TierTest, argv).Allowed()
	return shellResult(command, r, env.ShellTimeout, verification), nil
}

// shellResult turns what a command did into run_shell's answer. Any
// command may have changed the workspace and run_shell cannot tell, so
// Changed is set.
func shellResult(command string, r sandbox.Result, timeout time.Duration, verification bool) Result {
	var b strings.Builder
	b.WriteString(r.Output)
	if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "exit status %d", r.ExitCode)
	if r.Sandboxed {
		b.WriteString(" (sandboxed)")
	}
	if r.TimedOut {
		fmt.Fprintf(&b, " (timed out after %s)", timeout)
	}
	res := Result{Output: b.String(), Target: command}
	if verification {
		res.Verification = &Verification{Command: command, ExitCode: r.ExitCode, Sandboxed: r.Sandboxed, Duration: r.Duration}
	}
	return res
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
