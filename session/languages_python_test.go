package session

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

// TestPythonWithoutManifest: a repository of a module and its test_*.py,
// with no pyproject.toml, setup.py or requirements.txt, is Python: the
// model's python3 -m pytest runs confined, the harness runs it on both
// sides, and a correct fix is fixed (it was "pytest does not apply here").
// The model is offered python -m pytest only where the sandbox finds a
// python (Debian has only python3).
func TestPythonWithoutManifest(t *testing.T) {
	sandboxtest.RequireBwrap(t)
	t.Parallel()
	sb := toolchainSandbox(t, "python")
	files := map[string]string{
		"calc.py":      "def add(a, b):\n    return a - b\n",
		"test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5, 'add is wrong'\n",
	}
	command := "python3 -m pytest -q"
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: "+command),
		llm.ContentReply(write("calc.py", "def add(a, b):\n    return a + b\n")),
		llm.ContentReply("tool: run_shell\ncommand: "+command),
		llm.ContentReply("tool: done\nsummary: add adds"))
	opts := testOptions(t, srv, testkit.GitRepo(t, files))
	opts.Verification.Verify, opts.Services.Sandbox, opts.Verification.ShellTimeout = lang.TierTest, sb, 5*time.Minute
	w := &watcher{}
	opts.Live.Progress = w
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)

	require.NotNil(t, rep.Languages)
	assert.Equal(t, []string{"python"}, rep.Languages.Found)
	assert.Equal(t, []string{"python"}, rep.Languages.Inferred)
	assert.Contains(t, w.String(), "languages: python (no manifest: from its tests); --verify test runs unattended: pytest, ")
	assert.NotContains(t, w.String(), "pre-flight:")
	assert.Contains(t, rep.Languages.Allowed, "python3 -m pytest|unittest")
	ws := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(ws+"/"+name, []byte(body), 0o644))
	}
	pythonApplies := sb.Applies(t.Context(), ws, []string{"python", "-m", "pytest"}) == nil
	assert.Equal(t, pythonApplies, slices.Contains(rep.Languages.Allowed, "python -m pytest|unittest"),
		"python -m pytest is offered exactly where it can run: %v", rep.Languages.Allowed)
	system := srv.Requests()[0].Messages[0].Content
	_, rule, ok := strings.Cut(system, "- run_shell runs these without approval")
	require.True(t, ok, "the prompt has the verify rule")
	rule, _, _ = strings.Cut(rule, "\n")
	assert.Contains(t, rule, "python3 -m pytest")
	assert.Equal(t, pythonApplies, strings.Contains(rule, "python -m pytest"), rule)

	obs := srv.Requests()[1].Messages[len(srv.Requests()[1].Messages)-1].Content
	assert.Contains(t, obs, "add is wrong", "the first run shows the failing test")
	require.NotNil(t, rep.Contract)
	require.Len(t, rep.Contract.Checks, 1)
	c := rep.Contract.Checks[0]
	assert.Equal(t, strings.Fields(command), c.Command)
	assert.Equal(t, contract.VerdictFixed, c.Verdict, "base %+v, result %+v", c.Baseline, c.Result)
	assert.True(t, c.Baseline.Sandboxed, "the base's run is confined")
	assert.True(t, c.Result.Sandboxed, "the result's run is confined")
	assert.Equal(t, contract.ContractHeld, rep.Contract.Verdict)
}
