package session

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/state"
)

// TestOwnFailingRunNamed: a model whose own last go vet failed, and which
// changed nothing, calls done saying the checks pass; the run ends
// completed, and its summary says, beside the claim, that its own run
// failed.
func TestOwnFailingRunNamed(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, goModule(broken))
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: go vet ./..."),
		llm.ContentReply("tool: done\nsummary: Nothing to change: go vet passes and the tests pass."))
	opts := buildOptions(t, srv, repo)
	var progress strings.Builder
	opts.Live.Progress = &progress
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.Completed, rep.Status, rep.Error)
	_, noChange := rep.Finding(FindingNoChange)
	assert.True(t, noChange, "nothing changed")
	f, ok := rep.Finding(FindingOwnRunFailed)
	require.True(t, ok, "the finding: %+v", rep.Findings)
	assert.Equal(t, "the model said \"Nothing to change: go vet passes and the tests pass\"; its own last run of `go vet ./...` exited 1", f.Detail)
	var b strings.Builder
	rep.WriteSummary(&b)
	assert.Contains(t, b.String(), "summary: Nothing to change: go vet passes and the tests pass.\n  but the model said \"Nothing to change: go vet passes and the tests pass\"; its own last run of `go vet ./...` exited 1\n")
	assert.Contains(t, progress.String(), "warning: the model said")
	saved, err := opts.Services.Store.LoadReport(rep.ID)
	require.NoError(t, err)
	_, ok = saved.Finding(FindingOwnRunFailed)
	assert.True(t, ok, "report.json holds the finding")
}

// TestPullBodyNamesTheModelsOwnFailingRun: the pull request's body says,
// right under the model's summary, that its own last run failed.
func TestPullBodyNamesTheModelsOwnFailingRun(t *testing.T) {
	t.Parallel()
	s := &run{rec: &Record{ID: "s1", RecordOutcome: RecordOutcome{Summary: "Fixed add; the tests pass."}},
		report: &Report{
			ReportRun: ReportRun{Findings: []Finding{{Kind: FindingOwnRunFailed, Detail: "the model said \"the tests pass\"; its own last run of `pytest` exited 1"}}},
		}}
	assert.Contains(t, s.landWork().PullBody(), "Fixed add; the tests pass.\n\n> [!WARNING]\n> But the model said \"the tests pass\"; its own last run of `pytest` exited 1.\n\n### Checks")
	s.report.Findings = nil
	assert.NotContains(t, s.landWork().PullBody(), "[!WARNING]\n> But")
}
