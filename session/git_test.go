package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/state"
)

// TestGitScrubsWhatItIsGiven: a commit message holding a secret is
// committed (and written to the reflog) without it, and git's own words in
// an error are scrubbed.
func TestGitScrubsWhatItIsGiven(t *testing.T) {
	t.Parallel()
	ws := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644))
	g := gitRunner{env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, scrub: scrub.New("sekrit-value")}
	tree, err := g.landGit().WorkTree(t.Context(), ws)
	require.NoError(t, err)
	sha, err := commitTree(t.Context(), g, land.SigningKey{}, ws, tree, land.CommitMessage("Use sekrit-value\n\nbody sekrit-value", "s1", &contract.Contract{Verdict: contract.ContractHeld}))
	require.NoError(t, err)
	require.NotEmpty(t, sha)
	assert.Equal(t, "Use [redacted]\n\nbody [redacted]\n\nSession: s1", testkit.Git(t, ws, "log", "-1", "--format=%B"))
	reflog, err := os.ReadFile(filepath.Join(ws, ".git", "logs", "HEAD"))
	require.NoError(t, err)
	assert.NotContains(t, string(reflog), "sekrit-value")
	assert.Contains(t, string(reflog), "commit: Use [redacted]")

	_, err = g.run(t.Context(), ws, "rev-parse", "--verify", "sekrit-value")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "sekrit-value")
}

// TestDryRunDiffIsScrubbed: the diff a dry run prints, where a file holds
// a secret, shows it redacted.
func TestDryRunDiffIsScrubbed(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: look"))
	opts := testOptions(t, srv, repo)
	opts.Landing.DryRun = true
	opts.Services.Secrets = []string{"sekrit-value"}
	opts.Services.Client = &plantBefore{Completer: opts.Services.Client, n: 1, dir: workspaceOf(t, opts), files: map[string]string{"creds": "token=sekrit-value\n"}}
	var out strings.Builder
	opts.Services.Output = &out
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Contains(t, out.String(), "+token=[redacted]")
	assert.NotContains(t, out.String(), "sekrit-value")
}
