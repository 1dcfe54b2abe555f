package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

// TestSessionWarmsTheBuild: a session at the test tier warms the build in
// the background and says so; the model's first go test runs beside it and
// is killed at the shell timeout, and the model and the user are told
// so in words; the contract does not count the killed check as verified:
// killed on both sides, it could not judge the code.
func TestSessionWarmsTheBuild(t *testing.T) {
	sandboxtest.RequireBwrap(t)
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{
		"go.mod":       "module example.com/slow\n\ngo 1.21\n",
		"slow.go":      "// Package slow is slow to test.\npackage slow\n",
		"slow_test.go": "package slow\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Hour) }\n",
	})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: go test ./..."),
		llm.ContentReply(write("notes.txt", "slow\n")),
		llm.ContentReply("tool: done\nsummary: noted"),
	)
	opts := testOptions(t, srv, repo)
	opts.Verification.Verify = lang.TierTest
	opts.Services.Sandbox = sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), HostEnv: []string{"GOPROXY=off"}})
	opts.Verification.ShellTimeout = 3 * time.Second
	// Compiling counts too: the cold build cache would otherwise have up
	// to --build-ceiling to compile (TestColdCompileOutlastsTheShellTimeout).
	opts.Verification.BuildCeiling = opts.Verification.ShellTimeout
	w := &watcher{}
	opts.Live.Progress = w
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)

	out := w.String()
	assert.Contains(t, out, "warming the build cache in the background")
	assert.Less(t, strings.Index(out, "warming the build cache"), strings.Index(out, "turn 1/40  run_shell go test ./..."), "the warm-up starts with the session")
	assert.Regexp(t, `(?m)^core killed "go test \./\.\.\.": it ran past the shell timeout of 3s \(--shell-timeout\)`, out)

	reqs := srv.Requests()
	require.GreaterOrEqual(t, len(reqs), 2)
	obs := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	assert.Contains(t, obs, "exit status -1 (sandboxed)\ncore killed this command: it ran for ")
	assert.Contains(t, obs, "past the shell timeout of 3s")
	assert.Contains(t, obs, "A narrower command takes less: one package")

	// Nothing waited for the warm-up, which runs in the background: it
	// ended, or the session's end stopped it; either way the report and
	// the progress say so.
	require.NotNil(t, rep.Warmup, "the report says how the warm-up ended")
	assert.False(t, rep.Warmup.TimedOut)
	assert.Positive(t, rep.Warmup.Seconds)
	if rep.Warmup.Error == "" {
		assert.Equal(t, 0, rep.Warmup.Exit)
		assert.Regexp(t, `(?m)^warmed the build cache in \d`, out)
	} else {
		assert.Contains(t, rep.Warmup.Error, context.Canceled.Error())
		assert.NotContains(t, out, "warming the build cache stopped", "the run's stopping the warm-up is no warning")
	}

	// Killed on both sides, the check judged nothing: the environment's,
	// unjudged, never broken.
	require.NotNil(t, rep.Contract)
	assert.Equal(t, []contract.CheckVerdict{contract.VerdictEnvironment}, checkVerdicts(rep.Contract))
	assert.False(t, rep.Contract.Held(), "a killed check verifies nothing")
	assert.Equal(t, contract.ContractUnjudged, rep.Contract.Verdict)
	assert.Equal(t, state.Completed, rep.Status)
	var summary strings.Builder
	rep.WriteSummary(&summary)
	assert.Contains(t, summary.String(), "core killed a check that ran past the shell timeout of 3s")
	assert.Contains(t, summary.String(), "contract unjudged: go test ./... could not be judged (timed out on both sides: could not judge)")
}

// Without a usable sandbox nothing warms: go commands run on the host.
func TestSessionWarmsNothingUnconfined(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, goModule(builds))
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: go vet ./..."),
		llm.ContentReply("tool: done\nsummary: checked"),
	)
	opts := buildOptions(t, srv, repo)
	w := &watcher{}
	opts.Live.Progress = w
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.NotContains(t, w.String(), "warm")
	assert.Nil(t, rep.Warmup)
}

func TestWarmLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		res     sandbox.WarmResult
		stopped bool
		want    string
	}{
		{name: "done", res: sandbox.WarmResult{Result: sandbox.Result{Duration: 41 * time.Second}}, want: "warmed the build cache in 41s"},
		{name: "quick", res: sandbox.WarmResult{Result: sandbox.Result{Duration: 1234567 * time.Microsecond / 10}}, want: "warmed the build cache in 123ms"},
		{name: "broken build", res: sandbox.WarmResult{Result: sandbox.Result{Duration: 3 * time.Second, ExitCode: 1}},
			want: "warmed the build cache in 3s (the compile exited 1; the model's own commands show why)"},
		{name: "timed out", res: sandbox.WarmResult{Result: sandbox.Result{Duration: 20 * time.Minute, ExitCode: -1, TimedOut: true}},
			want: "warming the build cache ran past its timeout (CORE_SANDBOX_WARM_TIMEOUT) and was stopped after 20m0s; go commands build what they need themselves"},
		{name: "stopped at done: an ordinary end, no warning", stopped: true,
			res: sandbox.WarmResult{Result: sandbox.Result{Duration: 587 * time.Millisecond}, Err: fmt.Errorf("start /usr/bin/bwrap: %w", context.Canceled)}},
		{name: "stopped, the cancellation in words only", stopped: true,
			res: sandbox.WarmResult{Result: sandbox.Result{Duration: 2 * time.Second}, Err: errors.New("the box's agent: context canceled")}},
		{name: "cancelled by a person", res: sandbox.WarmResult{Result: sandbox.Result{Duration: 2 * time.Second}, Err: context.Canceled}},
		{name: "the sandbox failed", res: sandbox.WarmResult{Result: sandbox.Result{Duration: 2 * time.Second}, Err: errors.New("start /usr/bin/bwrap: no such file")},
			want: "warming the build cache stopped after 2s: start /usr/bin/bwrap: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, warmLine(tt.res, tt.stopped))
		})
	}
}
