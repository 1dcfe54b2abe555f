package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/land"
	"github.com/coreagent/core/session/state"
)

// dirtyRepo is a repository with a changed tracked file, a new untracked
// file and an ignored one, none of them committed.
func dirtyRepo(t *testing.T) string {
	t.Helper()
	repo := testkit.GitRepo(t, map[string]string{
		"calc.go":    "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
		"notes.txt":  "one\ntwo\nthree\n",
		".gitignore": "secret.env\n",
	})
	require.NoError(t, os.WriteFile(filepath.Join(repo, "calc.go"), []byte("package calc\n\n// Add adds, soon.\nfunc Add(a, b int) int { return a - b }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "draft.md"), []byte("my draft\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "secret.env"), []byte("TOKEN=x\n"), 0o600))
	return repo
}

func TestUncommittedWorkIsIncludedNotPublished(t *testing.T) {
	t.Parallel()
	repo := dirtyRepo(t)
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	statusBefore := testkit.Git(t, repo, "status", "--porcelain")
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: read_file\npath: calc.go"),
		llm.ContentReply("tool: read_file\npath: draft.md"),
		llm.ContentReply("tool: edit_file\npath: notes.txt\nold_text: two\nnew_text: TWO"),
		llm.ContentReply("tool: done\nsummary: Shout two"),
	)
	opts := testOptions(t, srv, repo)
	var progress strings.Builder
	opts.Live.Progress = &progress
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	require.True(t, rep.Landed)

	// The model worked on the working tree as the user left it.
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	seen := reqs[3].Messages
	var observed strings.Builder
	for _, m := range seen {
		observed.WriteString(m.Content)
	}
	assert.Contains(t, observed.String(), "// Add adds, soon.", "the uncommitted change reached the model")
	assert.Contains(t, observed.String(), "my draft", "the untracked file reached the model")
	assert.Contains(t, progress.String(), "starting from HEAD "+head[:12]+" plus 2 uncommitted changes")

	// It is kept under a private ref, without the ignored file.
	snap := testkit.Git(t, repo, "rev-parse", land.InputsRef(rep.ID))
	assert.Equal(t, rep.StartCommit, snap)
	assert.Equal(t, head, testkit.Git(t, repo, "rev-parse", snap+"^"))
	assert.Equal(t, "my draft", testkit.Git(t, repo, "show", snap+":draft.md"))
	files := testkit.Git(t, repo, "ls-tree", "--name-only", snap)
	assert.NotContains(t, files, "secret.env", "ignored files stay out")

	// What landed is the session's change on HEAD, without the user's work.
	assert.Equal(t, head, testkit.Git(t, repo, "rev-parse", rep.Branch+"^"))
	assert.Equal(t, "one\nTWO\nthree", testkit.Git(t, repo, "show", rep.Branch+":notes.txt"))
	assert.NotContains(t, testkit.Git(t, repo, "show", rep.Branch+":calc.go"), "soon", "the uncommitted change is not published")
	assert.NotContains(t, testkit.Git(t, repo, "ls-tree", "--name-only", rep.Branch), "draft.md")
	assert.Equal(t, "Shout two", strings.SplitN(testkit.Git(t, repo, "log", "-1", "--format=%B", rep.Branch), "\n", 2)[0])

	// The checks ran on the tree with the user's work; what landed leaves
	// it out, and the report, the summary and the commit say so.
	landed := testkit.Git(t, repo, "rev-parse", rep.Branch+"^{tree}")
	assert.Equal(t, landed, rep.LandedTree)
	assert.NotEqual(t, rep.Tree, rep.LandedTree, "the landed tree is not the one frozen at done")
	f, ok := rep.Finding(FindingLeftOut)
	require.True(t, ok, "a finding says the landed tree was not checked")
	assert.Contains(t, f.Detail, "the checks ran on tree "+rep.Tree[:12]+", which holds the 2 uncommitted changes the session started from; the landed commit "+clip.Hash(rep.Commit)+" leaves them out")
	var summary strings.Builder
	rep.WriteSummary(&summary)
	assert.Contains(t, summary.String(), "landed without your uncommitted work: the checks ran on tree "+rep.Tree[:12])
	assert.Contains(t, testkit.Git(t, repo, "log", "-1", "--format=%B", rep.Branch), "Uncommitted-work: left out")

	// The user's working tree, index and HEAD did not move.
	assert.Equal(t, statusBefore, testkit.Git(t, repo, "status", "--porcelain"))
	assert.Equal(t, head, testkit.Git(t, repo, "rev-parse", "HEAD"))
	assert.Equal(t, "main", testkit.Git(t, repo, "rev-parse", "--abbrev-ref", "HEAD"))
}

func TestCleanStartsFromHEAD(t *testing.T) {
	t.Parallel()
	repo := dirtyRepo(t)
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: read_file\npath: calc.go"),
		llm.ContentReply("tool: done\nsummary: looked"),
	)
	opts := testOptions(t, srv, repo)
	opts.Goal.Clean = true
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Equal(t, head, rep.StartCommit)
	obs := srv.Requests()[1].Messages
	assert.NotContains(t, obs[len(obs)-1].Content, "soon")
	_, err = gitRun(repo, "rev-parse", "--verify", "--quiet", land.InputsRef(rep.ID))
	assert.Error(t, err, "no snapshot is kept with --clean")
}

// TestChangesThatNeedTheUncommittedWorkDoNotLand: a change that overlaps
// the user's uncommitted work is refused as the user's state to sort out
// (configuration), with words that work: once that work is committed,
// core session land (or a resume) lands the change on top of it.
func TestChangesThatNeedTheUncommittedWorkDoNotLand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		again func(t *testing.T, opts Options, id string) (*Report, error)
	}{
		{name: "land", again: func(t *testing.T, opts Options, id string) (*Report, error) {
			return Land(t.Context(), id, opts)
		}},
		{name: "resume", again: func(t *testing.T, opts Options, id string) (*Report, error) {
			return Resume(t.Context(), id, "land it", opts)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := dirtyRepo(t)
			srv := llm.NewModelServer(t,
				llm.ContentReply("tool: edit_file\npath: calc.go\nold_text: \"// Add adds, soon.\"\nnew_text: \"// Add adds.\""),
				llm.ContentReply("tool: done\nsummary: Reword"),
				llm.ContentReply("tool: done\nsummary: Reword"),
			)
			srv.AllowExhaustion()
			opts := testOptions(t, srv, repo)
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			assert.Equal(t, state.Failed, rep.Status)
			assert.Equal(t, state.FailConfiguration, rep.FailureKind, "the user's state, not a broken machine")
			assert.False(t, rep.Landed)
			assert.Contains(t, rep.Error, "overlap the uncommitted work it started from")
			assert.Contains(t, rep.Error, "commit that work in "+repo+" (on main), then land the session with core session land "+rep.ID)
			assert.Contains(t, rep.Error, "--clean")
			_, err = gitRun(repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+rep.Branch)
			assert.Error(t, err, "nothing landed")

			// Doing what it said: commit the work, then land again.
			testkit.Git(t, repo, "add", "calc.go", "draft.md")
			testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "my work")
			mine := testkit.Git(t, repo, "rev-parse", "HEAD")
			rep, err = tt.again(t, opts, rep.ID)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			assert.True(t, rep.Landed)
			assert.Equal(t, mine, testkit.Git(t, repo, "rev-parse", rep.Branch+"^"), "the change sits on the user's commit")
			assert.Contains(t, testkit.Git(t, repo, "show", rep.Branch+":calc.go"), "// Add adds.\n")
			assert.Equal(t, "calc.go", testkit.Git(t, repo, "diff", "--name-only", mine, rep.Branch), "only the session's change")
		})
	}
}

// gitRun runs git in dir and returns its error, for refs that may be absent.
func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
