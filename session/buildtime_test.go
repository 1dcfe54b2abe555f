package session

import (
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
)

// coldModule is a module whose one package takes seconds to compile (n
// generated functions) and imports nothing, so that a go build of it in
// a fresh build cache compiles it alone: a cold build in small, without
// the minutes the standard library's would take.
func coldModule(n int) map[string]string {
	var b strings.Builder
	b.WriteString("// Package cold is slow to compile.\npackage cold\n")
	for i := range n {
		fmt.Fprintf(&b, "\n// F%d computes.\nfunc F%d(x int) int {\n\ty := x\n", i, i)
		for j := range 12 {
			fmt.Fprintf(&b, "\tif y%%%d == %d {\n\t\ty = y*%d + %d\n\t} else {\n\t\ty -= %d\n\t}\n", j+2, j, j+3, i, j)
		}
		b.WriteString("\treturn y\n}\n")
	}
	return map[string]string{
		"go.mod":  "module example.com/cold\n\ngo 1.21\n",
		"cold.go": b.String(),
	}
}

// TestColdCompileOutlastsTheShellTimeout (issue #35): on a module whose
// first compile outlasts a short --shell-timeout, the model's go build of
// its one package is not killed while it compiles, and neither are the
// harness's checks: the contract holds. Before, the command and both
// checks were killed at the timeout, and the contract broke.
func TestColdCompileOutlastsTheShellTimeout(t *testing.T) {
	sandboxtest.RequireBwrap(t)
	t.Parallel()
	// 6000 functions: about 6.5 s of compile on a quiet two-core machine,
	// past the timeout below by seconds, however fast the machine.
	repo := testkit.GitRepo(t, coldModule(6000))
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: go build ."),
		llm.ContentReply(write("notes.txt", "cold\n")),
		llm.ContentReply("tool: done\nsummary: noted"),
	)
	opts := testOptions(t, srv, repo)
	opts.Verification.Verify = lang.TierBuild
	// A fresh build cache; no warm-up (it would compile the standard
	// library for the tests): only the model's command and the checks
	// compile.
	opts.Services.Sandbox = sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"),
		HostEnv: []string{"GOPROXY=off"}, WarmTimeout: time.Millisecond})
	// Shorter than the package's compile on any machine, yet long enough
	// for what a command does besides compiling (the box's start, the go
	// command's own work) on a machine kept busy beside the tests: at 2 s,
	// that alone once reached the timeout. And a ceiling a busy machine
	// does not reach.
	opts.Verification.ShellTimeout = 4 * time.Second
	opts.Verification.BuildCeiling = testkit.Patience
	w := &watcher{}
	opts.Live.Progress = w
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)

	reqs := srv.Requests()
	require.GreaterOrEqual(t, len(reqs), 2)
	obs := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	assert.Contains(t, obs, "exit status 0 (sandboxed)", "the model's go build compiled past the timeout")
	assert.NotContains(t, obs, "core killed")
	assert.NotContains(t, w.String(), "core killed")

	require.NotNil(t, rep.Contract)
	assert.Equal(t, []contract.CheckVerdict{contract.VerdictPassing}, checkVerdicts(rep.Contract), "the checks compiled past the timeout too")
	assert.True(t, rep.Contract.Held())
	for _, r := range rep.Contract.Checks {
		assert.Equal(t, []string{"go", "build", "."}, r.Command)
		assert.Positive(t, r.Baseline.BuiltSeconds, "the start commit's check compiled")
	}
}

// TestBuildCeilingOption: the build ceiling is 4 times the shell timeout
// unless set, and a negative one is refused, naming the option.
func TestBuildCeilingOption(t *testing.T) {
	t.Parallel()
	base := testOptions(t, llm.NewModelServer(t), t.TempDir())
	o := base
	o.Verification.ShellTimeout = 3 * time.Minute
	o, err := o.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, 12*time.Minute, o.Verification.BuildCeiling)
	o = base
	o.Verification.BuildCeiling = time.Hour
	o, err = o.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, time.Hour, o.Verification.BuildCeiling)
	o = base
	o.Verification.BuildCeiling = -time.Second
	_, err = o.withDefaults()
	assert.ErrorContains(t, err, "build-ceiling")
}
