package tools

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killedText is what the model reads after a command killed at a 2s shell
// timeout.
const killedText = "core killed this command: it ran for 2s, past the shell timeout of 2s, so its output above is incomplete and it proves nothing. " +
	"The user can raise the limit with --shell-timeout."

func TestRunShellRouting(t *testing.T) {
	t.Parallel()
	ok := sandbox.Result{Output: "all good\n", ExitCode: 0, Duration: time.Second}
	tests := []struct {
		name         string
		tier         lang.Tier
		command      string
		approve      bool
		result       sandbox.Result
		runErr       error
		wantAsked    bool
		wantCall     *runnerCall // nil: the runner is not called
		wantOutput   string
		wantVerified bool
		wantNote     string
		wantErr      bool
	}{
		{
			name: "build tier verifies unattended", tier: lang.TierBuild, command: "go vet ./...", result: ok,
			wantCall:   &runnerCall{Tier: lang.TierBuild, Argv: []string{"go", "vet", "./..."}},
			wantOutput: "all good\nexit status 0", wantVerified: true,
		},
		{
			name: "test tier runs tests sandboxed", tier: lang.TierTest, command: "  go test ./...  ",
			result:     sandbox.Result{Output: "FAIL x", ExitCode: 1, Sandboxed: true},
			wantCall:   &runnerCall{Tier: lang.TierTest, Argv: []string{"go", "test", "./..."}},
			wantOutput: "FAIL x\nexit status 1 (sandboxed)", wantVerified: true,
		},
		{
			name: "go mod tidy may change the workspace", tier: lang.TierBuild, command: "go mod tidy", result: ok,
			wantCall:   &runnerCall{Tier: lang.TierBuild, Argv: []string{"go", "mod", "tidy"}},
			wantOutput: "all good\nexit status 0", wantVerified: true,
		},
		{
			name: "tests at the build tier go to the gate", tier: lang.TierBuild, command: "go test ./...", approve: true, result: ok,
			wantAsked: true, wantCall: &runnerCall{Host: true, Argv: []string{"bash", "-c", "go test ./..."}},
			wantOutput: "all good\nexit status 0", wantVerified: true,
		},
		{
			name: "a pipeline goes to the gate", tier: lang.TierTest, command: "go vet ./... | tee vet.txt", approve: true, result: ok,
			wantAsked: true, wantCall: &runnerCall{Host: true, Argv: []string{"bash", "-c", "go vet ./... | tee vet.txt"}},
			wantOutput: "all good\nexit status 0",
		},
		{
			name: "tier off sends verification to the gate", tier: lang.TierOff, command: "go vet ./...",
			wantAsked: true, wantOutput: Declined,
		},
		{
			name: "declined runs nothing", tier: lang.TierTest, command: "make deploy",
			wantAsked: true, wantOutput: Declined,
		},
		{
			name: "approved host command", tier: lang.TierBuild, command: "echo hi", approve: true, result: sandbox.Result{Output: "hi\n"},
			wantAsked: true, wantCall: &runnerCall{Host: true, Argv: []string{"bash", "-c", "echo hi"}},
			wantOutput: "hi\nexit status 0",
		},
		{
			name: "timed out", tier: lang.TierOff, command: "sleep 100", approve: true,
			result:    sandbox.Result{ExitCode: -1, TimedOut: true},
			wantAsked: true, wantCall: &runnerCall{Host: true, Argv: []string{"bash", "-c", "sleep 100"}},
			wantOutput: "exit status -1\n" + killedText,
			wantNote:   `core killed "sleep 100": it ran past the shell timeout of 2s (--shell-timeout)`,
		},
		{
			name: "killed after waiting for the download", tier: lang.TierTest, command: "go test ./...",
			result:   sandbox.Result{Output: "[killed: the command ran past its 2s timeout]\n", ExitCode: -1, TimedOut: true, Sandboxed: true, Duration: 2 * time.Second, Waited: 95 * time.Second},
			wantCall: &runnerCall{Tier: lang.TierTest, Argv: []string{"go", "test", "./..."}},
			wantOutput: "[killed: the command ran past its 2s timeout]\nexit status -1 (sandboxed)\n" +
				"core killed this command: it ran for 2s, past the shell timeout of 2s, so its output above is incomplete and it proves nothing. " +
				"Before it started, it waited 1m35s for the module download core's warm-up had under way; that wait did not count against the timeout. " +
				"A narrower command takes less: one package (go test ./pkg) or one test (go test -run TestName ./pkg). The user can raise the limit with --shell-timeout.",
			wantNote:     `core killed "go test ./...": it ran past the shell timeout of 2s (--shell-timeout), after waiting 1m35s for the module download under way (not counted)`,
			wantVerified: true,
		},
		{
			name: "waited for the download", tier: lang.TierTest, command: "go test ./...",
			result:       sandbox.Result{Output: "ok\n", Sandboxed: true, Waited: 40 * time.Second},
			wantCall:     &runnerCall{Tier: lang.TierTest, Argv: []string{"go", "test", "./..."}},
			wantOutput:   "ok\nexit status 0 (sandboxed) (it first waited 40s for the module download core's warm-up had under way; the wait did not count against the 2s shell timeout)",
			wantVerified: true,
		},
		{
			name: "the module download timed out", tier: lang.TierTest, command: "go test ./...",
			result:       sandbox.Result{Output: "go mod download (run by core confined, with the network, so that Go works offline in the sandbox) failed:\n", ExitCode: -1, TimedOut: true, Sandboxed: true, Setup: true},
			wantCall:     &runnerCall{Tier: lang.TierTest, Argv: []string{"go", "test", "./..."}},
			wantOutput:   "go mod download (run by core confined, with the network, so that Go works offline in the sandbox) failed:\nexit status -1 (sandboxed) (core's module download for it ran past its own timeout, above; the command did not run)",
			wantVerified: true,
		},
		{
			name: "refused by the sandbox", tier: lang.TierTest, command: "go test ./...",
			runErr:     &sandbox.RefusedError{Argv: []string{"go", "test", "./..."}, Reason: "it runs workspace code and the sandbox is not usable here"},
			wantCall:   &runnerCall{Tier: lang.TierTest, Argv: []string{"go", "test", "./..."}},
			wantOutput: "run_shell: go test ./... may not run unattended here: it runs workspace code and the sandbox is not usable here",
		},
		{
			name: "runner failure is an error", tier: lang.TierBuild, command: "go build ./...",
			runErr:   errors.New("start bwrap: permission denied"),
			wantCall: &runnerCall{Tier: lang.TierBuild, Argv: []string{"go", "build", "./..."}}, wantErr: true,
		},
		{name: "empty command", tier: lang.TierBuild, command: "   ", wantOutput: `run_shell: argument "command" must not be empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, nil)
			runner := &fakeRunner{result: tt.result, err: tt.runErr}
			approver := &recordingApprover{answer: tt.approve}
			env.Tier, env.Runner, env.Approver = tt.tier, runner, approver
			env.ShellTimeout = 2 * time.Second
			env.OutputLimit = 8192

			r, err := Default().Run(t.Context(), env, Call{Tool: "run_shell", Args: Args{"command": tt.command}})
			calls := runner.recorded()
			if tt.wantCall == nil {
				assert.Empty(t, calls)
			} else if assert.Len(t, calls, 1) {
				got := calls[0]
				assert.Equal(t, tt.wantCall.Host, got.Host)
				assert.Equal(t, tt.wantCall.Tier, got.Tier)
				assert.Equal(t, tt.wantCall.Argv, got.Argv)
				assert.Equal(t, env.Workspace.Root(), got.Opts.Workspace)
				assert.Equal(t, 2*time.Second, got.Opts.Timeout)
				assert.Equal(t, 8*time.Second, got.Opts.BuildCeiling, "compiling may take 4 times the shell timeout")
				assert.Positive(t, got.Opts.OutputLimit)
				assert.LessOrEqual(t, got.Opts.OutputLimit, 8192)
			}
			if tt.wantAsked {
				assert.Equal(t, []string{"run_shell: " + tt.command}, approver.recorded())
			} else {
				assert.Empty(t, approver.recorded())
			}
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOutput, r.Output)
			assert.Equal(t, tt.wantNote, r.Note)
			if tt.wantVerified {
				require.NotNil(t, r.Verification)
				assert.Equal(t, tt.result.ExitCode, r.Verification.ExitCode)
				assert.Equal(t, tt.result.Sandboxed, r.Verification.Sandboxed)
				assert.Equal(t, tt.result.Duration, r.Verification.Duration)
				assert.NotEmpty(t, r.Verification.Command)
				assert.Equal(t, r.Target, r.Verification.Command)
			} else {
				assert.Nil(t, r.Verification)
			}
		})
	}
}

func TestRunShellApproverError(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	runner := &fakeRunner{}
	env.Runner, env.Approver = runner, &recordingApprover{err: errors.New("terminal gone")}
	_, err := Default().Run(t.Context(), env, Call{Tool: "run_shell", Args: Args{"command": "ls"}})
	require.Error(t, err)
	assert.Empty(t, runner.recorded())
}

func TestRunShellNoApproverDeclines(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	runner := &fakeRunner{}
	env.Runner, env.Approver = runner, nil
	r := runTool(t, env, "run_shell", Args{"command": "ls"})
	assert.Equal(t, Declined, r.Output)
	assert.Empty(t, runner.recorded())
}

// TestRunShellRealSandbox runs commands for real through *sandbox.Sandbox
// with the sandbox off: gofmt -l unattended at the build tier, an approved
// echo on the host, and a command killed by its timeout.
func TestRunShellRealSandbox(t *testing.T) {
	t.Parallel()
	box := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeOff, Path: os.Getenv("PATH")})
	tests := []struct {
		name         string
		command      string
		approve      bool
		timeout      time.Duration
		wantAsked    bool
		wantOutput   string
		regexp       bool // wantOutput is a pattern
		wantVerified bool
	}{
		{name: "gofmt -l unattended", command: "gofmt -l .", wantOutput: "ugly.go\nexit status 0", wantVerified: true},
		{name: "approved echo on the host", command: "echo hi", approve: true, wantAsked: true, wantOutput: "hi\nexit status 0"},
		{name: "declined echo", command: "echo hi > x.txt", wantAsked: true, wantOutput: Declined},
		{name: "exit status", command: "echo oops >&2; exit 3", approve: true, wantAsked: true, wantOutput: "oops\nexit status 3"},
		{
			name: "timeout", command: "sleep 30", approve: true, timeout: 300 * time.Millisecond, wantAsked: true,
			wantOutput: `^\n\[killed: the command ran past its 300ms timeout\]\nexit status -1\ncore killed this command: it ran for [0-9.]+m?s, past the shell timeout of 300ms, so its output above is incomplete and it proves nothing\. The user can raise the limit with --shell-timeout\.$`,
			regexp:     true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, map[string]string{"ugly.go": "package ugly\nfunc  F( ) {}\n", "ok.go": "package ugly\n"})
			approver := &recordingApprover{answer: tt.approve}
			env.Tier, env.Runner, env.Approver = lang.TierBuild, box, approver
			env.ShellTimeout = tt.timeout
			if env.ShellTimeout == 0 {
				env.ShellTimeout = time.Minute
			}
			r := runTool(t, env, "run_shell", Args{"command": tt.command})
			if tt.regexp {
				assert.Regexp(t, tt.wantOutput, r.Output)
			} else {
				assert.Equal(t, tt.wantOutput, r.Output)
			}
			assert.Equal(t, tt.command, r.Target)
			_, err := os.Stat(filepath.Join(env.Workspace.Root(), "x.txt"))
			assert.ErrorIs(t, err, os.ErrNotExist, "a declined command does not run")
			if tt.wantAsked {
				assert.Equal(t, []string{"run_shell: " + tt.command}, approver.recorded())
			} else {
				assert.Empty(t, approver.recorded())
			}
			if !tt.wantVerified {
				assert.Nil(t, r.Verification)
				return
			}
			require.NotNil(t, r.Verification)
			assert.Equal(t, Verification{Command: tt.command, ExitCode: 0, Sandboxed: false, Duration: r.Verification.Duration}, *r.Verification)
			assert.Positive(t, r.Verification.Duration)
		})
	}
}
