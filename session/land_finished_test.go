package session

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/state"
)

// TestLandRefusesUnfinishedWork: land lands only what a model called done,
// and refuses a session that does not exist; neither changes anything.
func TestLandRefusesUnfinishedWork(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"))
	opts := testOptions(t, srv, repo)
	opts.Limits.MaxTurns = 1
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Partial, rep.Status)

	_, err = Land(t.Context(), rep.ID, opts)
	assert.ErrorContains(t, err, "has no finished work to land: its model never called done (core session resume "+rep.ID)
	_, err = Land(t.Context(), "20200101-000000-abcdef", opts)
	assert.ErrorContains(t, err, "no session 20200101-000000-abcdef")
	rec, err := opts.Services.Store.Load(rep.ID)
	require.NoError(t, err)
	assert.Equal(t, state.Partial, rec.Status, "a refusal leaves the record as it was")
}

// TestBrokenContractLandsMarkedLocally: a local landing of work that broke
// its contract is marked in its commit as its pull request's title would
// be, and the model's claim is not left standing as fact.
func TestBrokenContractLandsMarkedLocally(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	repo := testkit.GitRepo(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: edit_file\npath: calc.go\nold_text: \"a + b\"\nnew_text: \"a +\""),
		llm.ContentReply("tool: done\nsummary: Fix Add; go build passes"),
	)
	opts := testOptions(t, srv, repo)
	opts.Verification.Verify = lang.TierBuild
	opts.Verification.Checks = []string{"go build ./..."}
	opts.Services.GitEnv = append(opts.Services.GitEnv, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.True(t, rep.Contract.Broken(), "contract: %s", rep.Contract.Line())
	require.True(t, rep.Landed, rep.Error)
	msg := testkit.Git(t, repo, "log", "-1", "--format=%B", rep.Branch)
	assert.True(t, strings.HasPrefix(msg, "[checks failing] Fix Add; go build passes\n"), msg)
	assert.Contains(t, msg, "The harness's checks: contract broken: 1 regressed. What follows is the model's summary, which they contradict.")
}
