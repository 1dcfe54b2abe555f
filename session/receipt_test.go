package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/receipt"
	"github.com/coreagent/core/session/state"
)

// gofmtFix is a repository whose calc.go does not parse, and the options
// of a session whose model fixes it, held to gofmt -l . at the build tier.
func gofmtFix(t *testing.T) (string, Options) {
	t.Helper()
	repo := testkit.GitRepo(t, goModule(broken))
	srv := llm.NewModelServer(t,
		llm.ContentReply(write("calc.go", "package calc\n\n"+builds+"\n")),
		llm.ContentReply("tool: done\nsummary: fixed it"))
	opts := buildOptions(t, srv, repo)
	opts.Verification.Checks = []string{"gofmt -l ."}
	return repo, opts
}

// A session on a local repository with a check writes receipt.json
// beside report.json: the report names it by its hash, and it holds the
// contract's checks, the start commit and the tree the checks ran on,
// committed on the branch the work landed on.
func TestReceiptWritten(t *testing.T) {
	t.Parallel()
	repo, opts := gofmtFix(t)
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	require.NotNil(t, rep.Contract)
	require.NotNil(t, rep.Receipt, "the report names the receipt")
	assert.Equal(t, ReceiptFile, rep.Receipt.File)

	data, err := os.ReadFile(filepath.Join(opts.Services.Store.Dir(rep.ID), ReceiptFile))
	require.NoError(t, err)
	assert.Equal(t, receipt.Hash(data), rep.Receipt.Hash, "report.json's hash is the file's")
	saved, err := opts.Services.Store.LoadReport(rep.ID)
	require.NoError(t, err)
	assert.Equal(t, rep.Receipt, saved.Receipt)

	r, err := receipt.Parse(data)
	require.NoError(t, err)
	assert.Equal(t, rep.Contract.Tree, r.Result.Tree, "the result tree is the contract's")
	assert.Equal(t, rep.Commit, r.Result.Commit)
	assert.Equal(t, rep.StartCommit, r.Start.Commit)
	assert.Equal(t, rep.StartTree, r.Start.Tree)
	assert.Equal(t, rep.Branch, r.Branch)
	assert.Equal(t, rep.Repo, r.Repository)
	assert.Equal(t, "build", r.Sandbox.Tier)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, r.Sandbox.Profile)
	assert.Equal(t, string(rep.Contract.Verdict), r.Verdict)
	require.Len(t, r.Checks, 1)
	ch := r.Checks[0]
	assert.Equal(t, []string{"gofmt", "-l", "."}, ch.Argv)
	assert.Equal(t, ".", ch.Dir)
	assert.Contains(t, ch.Env, "PATH")
	assert.Equal(t, string(rep.Contract.Checks[0].Verdict), ch.Verdict)
	assert.Equal(t, rep.Contract.Checks[0].Baseline.Exit, ch.Start.Exit)
	assert.Equal(t, rep.Contract.Checks[0].Result.Exit, ch.Result.Exit)
	tree := testkit.Git(t, repo, "rev-parse", r.Result.Commit+"^{tree}")
	assert.Equal(t, r.Result.Tree, tree, "the result commit holds the checked tree")
}

// A dry run keeps a receipt of no commit; core session land lands it,
// and the receipt becomes the landed commit's, the rest as the run made
// it.
func TestReceiptOnLand(t *testing.T) {
	t.Parallel()
	rep, opts := gofmtDryRun(t)
	require.False(t, rep.Landed)
	require.NotNil(t, rep.Receipt, "a contract not landed has its receipt")
	dry := readReceipt(t, opts.Services.Store, rep.ID)
	assert.Empty(t, dry.Result.Commit)
	assert.Empty(t, dry.Branch)

	landed, err := Land(t.Context(), rep.ID, opts)
	require.NoError(t, err)
	require.True(t, landed.Landed, landed.Error)
	require.NotNil(t, landed.Receipt)
	r := readReceipt(t, opts.Services.Store, rep.ID)
	assert.Equal(t, landed.Commit, r.Result.Commit)
	assert.Equal(t, landed.Branch, r.Branch)
	assert.Equal(t, dry.Checks, r.Checks, "the checks as the run ran them, outputs' hashes included")
	assert.Equal(t, dry.Result.Tree, r.Result.Tree)
}

// core session land of a run that kept no receipt (a run from before
// receipts) makes one from report.json's contract, whose outputs are gone:
// the receipt says they were not kept and names no output's hash.
func TestReceiptOnLandOfARunWithoutOne(t *testing.T) {
	t.Parallel()
	rep, opts := gofmtDryRun(t)
	require.NoError(t, os.Remove(filepath.Join(opts.Services.Store.Dir(rep.ID), ReceiptFile)))

	landed, err := Land(t.Context(), rep.ID, opts)
	require.NoError(t, err)
	require.True(t, landed.Landed, landed.Error)
	r := readReceipt(t, opts.Services.Store, rep.ID)
	assert.Equal(t, landed.Commit, r.Result.Commit)
	assert.True(t, r.OutputsNotKept, "the receipt says the outputs were not kept")
	require.Len(t, r.Checks, 1)
	assert.Empty(t, r.Checks[0].Start.Output, "no hash of the empty output")
	assert.Empty(t, r.Checks[0].Result.Output)
	assert.Equal(t, string(rep.Contract.Checks[0].Verdict), r.Checks[0].Verdict)
}

// gofmtDryRun is gofmtFix's session run as a dry run: its report and
// options, to land it with.
func gofmtDryRun(t *testing.T) (*Report, Options) {
	t.Helper()
	_, opts := gofmtFix(t)
	opts.Landing.DryRun = true
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	return rep, opts
}

func readReceipt(t *testing.T, st *Store, id string) *receipt.Receipt {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(st.Dir(id), ReceiptFile))
	require.NoError(t, err)
	r, err := receipt.Parse(data)
	require.NoError(t, err)
	return r
}

// A local landing that leaves out the uncommitted work the session
// started from commits another tree than the checked one: the receipt
// names no commit for the result rather than one that does not hold it.
func TestReceiptLeftOutNamesNoCommit(t *testing.T) {
	t.Parallel()
	repo := dirtyRepo(t)
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: edit_file\npath: notes.txt\nold_text: two\nnew_text: TWO"),
		llm.ContentReply("tool: done\nsummary: Shout two"))
	opts := buildOptions(t, srv, repo)
	opts.Verification.Checks = []string{"gofmt -l ."}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.True(t, rep.Landed, rep.Error)
	require.NotEqual(t, rep.Tree, rep.LandedTree)
	r := readReceipt(t, opts.Services.Store, rep.ID)
	assert.Equal(t, rep.Tree, r.Result.Tree, "the checked tree")
	assert.Empty(t, r.Result.Commit, "no commit holds it")
	assert.Empty(t, r.Branch)
}
