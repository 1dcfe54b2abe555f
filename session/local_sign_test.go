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
	"github.com/coreagent/core/session/state"
)

// TestLocalLandingSignsAsGitConfigAsks: a local repository whose own
// configuration sets commit.gpgsign gets core's commit signed with its
// signing setup (here an SSH key): git verify-commit accepts it, and the
// report names it. A setup that cannot sign (its key is missing) lands
// nothing, with git's reason.
func TestLocalLandingSignsAsGitConfigAsks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		badKey  bool
		wantErr string
	}{
		{name: "signs"},
		{name: "cannot sign", badKey: true, wantErr: "your git configuration asks for signed commits (commit.gpgsign), and signing the commit failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
			priv, pub := testkit.SSHKey(t, "")
			key := filepath.Join(t.TempDir(), "id")
			require.NoError(t, os.WriteFile(key, []byte(priv), 0o600))
			if tt.badKey {
				key = filepath.Join(t.TempDir(), "missing")
			}
			testkit.Git(t, repo, "config", "commit.gpgsign", "true")
			testkit.Git(t, repo, "config", "gpg.format", "ssh")
			testkit.Git(t, repo, "config", "user.signingkey", key)
			srv := llm.NewModelServer(t,
				llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
				llm.ContentReply("tool: done\nsummary: wrote a"),
			)
			opts := testOptions(t, srv, repo)
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			branch := "refs/heads/" + rep.Branch
			if tt.wantErr != "" {
				assert.Equal(t, state.Failed, rep.Status)
				assert.Contains(t, rep.Error, tt.wantErr)
				assert.Contains(t, rep.Error, "missing", "git's words name the key it could not use")
				assert.NotContains(t, testkit.Git(t, repo, "for-each-ref", "--format=%(refname)"), branch, "nothing landed")
				return
			}
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			head := testkit.Git(t, repo, "rev-parse", branch)
			assert.Equal(t, head, rep.Commit)
			assert.Equal(t, rep.Tree, rep.LandedTree)
			allowed := filepath.Join(t.TempDir(), "allowed")
			require.NoError(t, os.WriteFile(allowed, []byte("core@users.noreply.github.com "+pub+"\n"), 0o600))
			testkit.Git(t, repo, "-c", "gpg.ssh.allowedSignersFile="+allowed, "verify-commit", head)
			assert.Equal(t, "core", testkit.Git(t, repo, "log", "-1", "--format=%an", head))
			assert.True(t, strings.HasPrefix(testkit.Git(t, repo, "log", "-1", "--format=%B", head), "wrote a"))
			assert.Empty(t, testkit.Git(t, repo, "for-each-ref", "refs/core/unsigned"), "the unsigned commit's ref is gone")
		})
	}
}

// TestLocalLandingSignsTheRebuiltCommit: a session that started from the
// user's uncommitted work lands its changes rebuilt onto HEAD; with
// commit.gpgsign that rebuilt commit is the signed one, and the finding
// names it.
func TestLocalLandingSignsTheRebuiltCommit(t *testing.T) {
	t.Parallel()
	repo := dirtyRepo(t)
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	priv, pub := testkit.SSHKey(t, "")
	key := filepath.Join(t.TempDir(), "id")
	require.NoError(t, os.WriteFile(key, []byte(priv), 0o600))
	testkit.Git(t, repo, "config", "commit.gpgsign", "true")
	testkit.Git(t, repo, "config", "gpg.format", "ssh")
	testkit.Git(t, repo, "config", "user.signingkey", key)
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: edit_file\npath: notes.txt\nold_text: two\nnew_text: TWO"),
		llm.ContentReply("tool: done\nsummary: Shout two"),
	)
	rep, err := Run(t.Context(), testOptions(t, srv, repo))
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	landed := testkit.Git(t, repo, "rev-parse", "refs/heads/"+rep.Branch)
	assert.Equal(t, landed, rep.Commit)
	assert.Equal(t, head, testkit.Git(t, repo, "rev-parse", landed+"^"), "on HEAD, without the user's work")
	allowed := filepath.Join(t.TempDir(), "allowed")
	require.NoError(t, os.WriteFile(allowed, []byte("core@users.noreply.github.com "+pub+"\n"), 0o600))
	testkit.Git(t, repo, "-c", "gpg.ssh.allowedSignersFile="+allowed, "verify-commit", landed)
	f, ok := rep.Finding(FindingLeftOut)
	require.True(t, ok)
	assert.Contains(t, f.Detail, "the landed commit "+landed[:12])
}
