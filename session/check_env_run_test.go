package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/state"
)

// TestContractEnvironment runs a session whose check fails on both sides
// for a cause of the environment's (a dependency missing): the contract
// says which check could not judge the code and why, and is never broken.
func TestContractEnvironment(t *testing.T) {
	t.Parallel()
	files := goModule(builds)
	files["dep.go"] = "package calc\n\nimport _ \"example.com/dep\"\n"
	repo := testkit.GitRepo(t, files)
	srv := llm.NewModelServer(t,
		llm.ContentReply(write("extra.go", "package calc\n")),
		llm.ContentReply("tool: done\nsummary: added a file"))
	opts := buildOptions(t, srv, repo)
	opts.Verification.Checks = []string{"go build ./..."}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.NotNil(t, rep.Contract)
	assert.Equal(t, contract.ContractUnjudged, rep.Contract.Verdict, rep.Contract.Line())
	assert.Equal(t, state.Completed, rep.Status, "never partial: the code broke nothing it could be judged on: %s", rep.Error)
	require.Len(t, rep.Contract.Checks, 1)
	r := rep.Contract.Checks[0]
	assert.Equal(t, contract.VerdictEnvironment, r.Verdict)
	assert.Equal(t, "a dependency is missing: example.com/dep", r.Cause)
	assert.Contains(t, r.Evidence, "no required module provides package example.com/dep")
	assert.True(t, rep.Landed, "the work lands, unverified")
	saved, err := opts.Services.Store.LoadReport(rep.ID)
	require.NoError(t, err)
	assert.Equal(t, r.Cause, saved.Contract.Checks[0].Cause, "report.json holds the cause")
}

// TestContractManifestRemoved runs a session whose change removes what a
// check that passed on the start commit needs (its go.mod): the code's
// doing, a regression, never a check that did not apply.
func TestContractManifestRemoved(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, goModule(builds))
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: rm go.mod"),
		llm.ContentReply("tool: done\nsummary: simplified the build"))
	opts := buildOptions(t, srv, repo)
	opts.Services.Approver = approveAll{}
	opts.Verification.Checks = []string{"go build ./..."}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.NotNil(t, rep.Contract)
	assert.Equal(t, contract.ContractBroken, rep.Contract.Verdict, rep.Contract.Line())
	assert.Equal(t, []contract.CheckVerdict{contract.VerdictRegressed}, checkVerdicts(rep.Contract))
	assert.Equal(t, state.Partial, rep.Status)
	assert.Contains(t, rep.Error, "the result broke its contract")
}
