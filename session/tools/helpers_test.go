package tools

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/stretchr/testify/require"
)

// writeFiles creates files (path → content) under root, with their
// parent directories.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// newEnv returns an environment on a fresh workspace holding files.
func newEnv(t *testing.T, files map[string]string) *Env {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	ws, err := NewWorkspace(root)
	require.NoError(t, err)
	return &Env{Workspace: ws, Tier: lang.TierOff, Approver: DenyApprover{}}
}

// runTool runs one call through the default set and requires no Go error.
func runTool(t *testing.T, env *Env, tool string, args Args) Result {
	t.Helper()
	r, err := Default().Run(t.Context(), env, Call{Tool: tool, Args: args})
	require.NoError(t, err)
	return r
}

// readFileT returns a workspace file's content.
func readFileT(t *testing.T, env *Env, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(env.Workspace.Root(), filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(data)
}

// runnerCall is one command a fakeRunner was asked to run.
type runnerCall struct {
	Host bool
	Tier lang.Tier
	Argv []string
	Opts sandbox.RunOptions
}

// fakeRunner records the commands it is asked to run and answers with a
// fixed result.
type fakeRunner struct {
	mu     sync.Mutex
	calls  []runnerCall
	result sandbox.Result
	err    error
}

func (f *fakeRunner) Verify(ctx context.Context, tier lang.Tier, argv []string, opts sandbox.RunOptions) (sandbox.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, runnerCall{Tier: tier, Argv: argv, Opts: opts})
	return f.result, f.err
}

func (f *fakeRunner) RunHost(ctx context.Context, argv []string, opts sandbox.RunOptions) (sandbox.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, runnerCall{Host: true, Argv: argv, Opts: opts})
	return f.result, f.err
}

func (f *fakeRunner) Warm(context.Context, string) *sandbox.Warmup { return nil }

func (f *fakeRunner) recorded() []runnerCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]runnerCall(nil), f.calls...)
}

// recordingApprover records what it was asked and gives a fixed answer.
type recordingApprover struct {
	mu     sync.Mutex
	asked  []string
	answer bool
	err    error
}

func (a *recordingApprover) Approve(ctx context.Context, action string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, action)
	return a.answer, a.err
}

func (a *recordingApprover) recorded() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}
