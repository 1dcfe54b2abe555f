package ghfake

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitDataFixture is octo/hello with a user's token (alice, write), an
// installation token (the App's bot, write), a reader's and a stranger's.
func gitDataFixture(t *testing.T, opts ...RepoOption) (*GitHub, *Repo) {
	t.Helper()
	g := NewGitHub(t)
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{"hello.txt": "hello\n", "dir/a.txt": "a\n"}, opts...)
	g.AddToken("pat_alice", "alice")
	g.AddExpiringToken("ghs_app", "core-app[bot]", time.Now().Add(time.Hour))
	g.AddToken("pat_reader", "reader")
	g.AddToken("pat_stranger", "stranger")
	require.NoError(t, g.SetPermission("octo", "hello", "alice", "write"))
	require.NoError(t, g.SetPermission("octo", "hello", "core-app[bot]", "write"))
	require.NoError(t, g.SetPermission("octo", "hello", "reader", "read"))
	return g, repo
}

// status is the HTTP status of a go-github error, 0 for none.
func status(err error) int {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return 0
	}
	return er.Response.StatusCode
}

// TestGitDataCommitLands: a blob (binary), a tree on the base tree with a
// file changed, one added, one deleted and a symbolic link, a commit with
// the given author and dates, and a fast-forward of main: git sees
// exactly that commit, and GitHub says it is verified for an App and
// unsigned for a user's token.
func TestGitDataCommitLands(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, token, reason string
		verified            bool
	}{
		{name: "app", token: "ghs_app", reason: "valid", verified: true},
		{name: "user", token: "pat_alice", reason: "unsigned"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, repo := gitDataFixture(t)
			ctx, c := t.Context(), g.Client(t, tt.token)
			head, _, err := repo.Head(ctx, "main")
			require.NoError(t, err)
			base := gitOut(t, repo.Dir(), "rev-parse", head+"^{tree}")
			bin := []byte{0, 1, 2, 0xff, '\n'}
			blob, _, err := c.Git.CreateBlob(ctx, "octo", "hello", &github.Blob{Content: github.String(base64.StdEncoding.EncodeToString(bin)), Encoding: github.String("base64")})
			require.NoError(t, err)
			got, _, err := c.Git.GetBlob(ctx, "octo", "hello", blob.GetSHA())
			require.NoError(t, err)
			raw, err := base64.StdEncoding.DecodeString(got.GetContent())
			require.NoError(t, err)
			assert.Equal(t, bin, raw)
			link, _, err := c.Git.CreateBlob(ctx, "octo", "hello", &github.Blob{Content: github.String("hello.txt"), Encoding: github.String("utf-8")})
			require.NoError(t, err)
			tree, _, err := c.Git.CreateTree(ctx, "octo", "hello", base, []*github.TreeEntry{
				{Path: github.String("bin/data"), Mode: github.String("100755"), Type: github.String("blob"), SHA: blob.SHA},
				{Path: github.String("hello.txt"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("hi\n")},
				{Path: github.String("link"), Mode: github.String("120000"), Type: github.String("blob"), SHA: link.SHA},
				{Path: github.String("dir/a.txt"), Mode: github.String("100644"), Type: github.String("blob")}, // sha null: deleted
			})
			require.NoError(t, err)
			assert.Equal(t, "bin/data\nhello.txt\nlink", gitOut(t, repo.Dir(), "ls-tree", "-r", "--name-only", tree.GetSHA()))
			read, _, err := c.Git.GetTree(ctx, "octo", "hello", tree.GetSHA(), true)
			require.NoError(t, err)
			require.Len(t, read.Entries, 3)
			assert.Equal(t, "100755", read.Entries[0].GetMode())
			when := time.Date(2026, 12, 5, 1, 2, 3, 0, time.FixedZone("", 2*3600))
			who := &github.CommitAuthor{Name: github.String("core"), Email: github.String("core@users.noreply.github.com"), Date: &github.Timestamp{Time: when}}
			cm, resp, err := c.Git.CreateCommit(ctx, "octo", "hello", &github.Commit{
				Message: github.String("Say hi\n\nCo-authored-by: alice <alice@example.com>\n"), Tree: tree,
				Parents: []*github.Commit{{SHA: github.String(head)}}, Author: who, Committer: who,
			}, nil)
			require.NoError(t, err)
			assert.Equal(t, http.StatusCreated, resp.StatusCode)
			assert.Equal(t, tree.GetSHA(), cm.GetTree().GetSHA())
			assert.Equal(t, tt.verified, cm.GetVerification().GetVerified())
			assert.Equal(t, fmt.Sprintf("core <core@users.noreply.github.com> %d +0200", when.Unix()), gitOut(t, repo.Dir(), "log", "-1", "--format=%an <%ae> %at %ad", "--date=format:%z", cm.GetSHA()))
			assert.Equal(t, "Say hi\n\nCo-authored-by: alice <alice@example.com>", gitOut(t, repo.Dir(), "log", "-1", "--format=%B", cm.GetSHA()))
			_, _, err = c.Git.UpdateRef(ctx, "octo", "hello", &github.Reference{Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: cm.SHA}}, false)
			require.NoError(t, err)
			now, _, err := repo.Head(ctx, "main")
			require.NoError(t, err)
			assert.Equal(t, cm.GetSHA(), now)
			rc, _, err := c.Repositories.GetCommit(ctx, "octo", "hello", "main", nil)
			require.NoError(t, err)
			assert.Equal(t, cm.GetSHA(), rc.GetSHA())
			assert.Equal(t, tt.verified, rc.GetCommit().GetVerification().GetVerified())
			assert.Equal(t, tt.reason, rc.GetCommit().GetVerification().GetReason())
			gc, _, err := c.Git.GetCommit(ctx, "octo", "hello", cm.GetSHA())
			require.NoError(t, err)
			assert.Equal(t, head, gc.Parents[0].GetSHA())
		})
	}
}

// TestGitDataRefs: a new branch by POST git/refs, a fast-forward by
// PATCH, a non-fast-forward refused with GitHub's 422 and the branch as
// it was; GET git/ref reads it.
func TestGitDataRefs(t *testing.T) {
	t.Parallel()
	g, repo := gitDataFixture(t)
	ctx, c := t.Context(), g.Client(t, "pat_alice")
	head, _, err := repo.Head(ctx, "main")
	require.NoError(t, err)
	ref, _, err := c.Git.CreateRef(ctx, "octo", "hello", &github.Reference{Ref: github.String("refs/heads/topic"), Object: &github.GitObject{SHA: github.String(head)}})
	require.NoError(t, err)
	assert.Equal(t, head, ref.GetObject().GetSHA())
	_, _, err = c.Git.CreateRef(ctx, "octo", "hello", &github.Reference{Ref: github.String("refs/heads/topic"), Object: &github.GitObject{SHA: github.String(head)}})
	assert.Equal(t, http.StatusUnprocessableEntity, status(err))
	assert.ErrorContains(t, err, "Reference already exists")
	read, _, err := c.Git.GetRef(ctx, "octo", "hello", "refs/heads/topic")
	require.NoError(t, err)
	assert.Equal(t, head, read.GetObject().GetSHA())
	_, _, err = c.Git.GetRef(ctx, "octo", "hello", "refs/heads/none")
	assert.Equal(t, http.StatusNotFound, status(err))

	moved, err := repo.Commit(ctx, "main", "someone else's", map[string]string{"x": "x\n"})
	require.NoError(t, err)
	side, err := repo.Commit(ctx, "topic", "core's", map[string]string{"y": "y\n"})
	require.NoError(t, err)
	_, _, err = c.Git.UpdateRef(ctx, "octo", "hello", &github.Reference{Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: github.String(side)}}, false)
	assert.Equal(t, http.StatusUnprocessableEntity, status(err))
	assert.ErrorContains(t, err, "Update is not a fast forward")
	now, _, err := repo.Head(ctx, "main")
	require.NoError(t, err)
	assert.Equal(t, moved, now, "a refused update changes nothing")
	_, _, err = c.Git.UpdateRef(ctx, "octo", "hello", &github.Reference{Ref: github.String("refs/heads/none"), Object: &github.GitObject{SHA: github.String(side)}}, false)
	assert.ErrorContains(t, err, "Reference does not exist")
	_, _, err = c.Git.UpdateRef(ctx, "octo", "hello", &github.Reference{Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: github.String(strings.Repeat("1", 40))}}, false)
	assert.ErrorContains(t, err, "Object does not exist")
}

// TestGitDataBadInput: unknown objects, bad bodies and callers without
// write access get GitHub's errors, and nothing is written.
func TestGitDataBadInput(t *testing.T) {
	t.Parallel()
	g, repo := gitDataFixture(t)
	ctx := t.Context()
	head, _, err := repo.Head(ctx, "main")
	require.NoError(t, err)
	unknown := strings.Repeat("a", 40)
	c := g.Client(t, "pat_alice")
	_, _, err = c.Git.CreateTree(ctx, "octo", "hello", unknown, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, status(err), "unknown base_tree")
	_, _, err = c.Git.CreateTree(ctx, "octo", "hello", "", []*github.TreeEntry{{Path: github.String("f"), Mode: github.String("100644"), Type: github.String("blob"), SHA: github.String(unknown)}})
	assert.Equal(t, http.StatusUnprocessableEntity, status(err), "unknown blob")
	_, _, err = c.Git.CreateTree(ctx, "octo", "hello", "", []*github.TreeEntry{{Path: github.String("../f"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("x")}})
	assert.Equal(t, http.StatusUnprocessableEntity, status(err), "a path out of the tree")
	_, _, err = c.Git.CreateCommit(ctx, "octo", "hello", &github.Commit{Message: github.String("m"), Tree: &github.Tree{SHA: github.String(unknown)}}, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, status(err), "unknown tree")
	tree := gitOut(t, repo.Dir(), "rev-parse", head+"^{tree}")
	_, _, err = c.Git.CreateCommit(ctx, "octo", "hello", &github.Commit{Message: github.String("m"), Tree: &github.Tree{SHA: github.String(tree)}, Parents: []*github.Commit{{SHA: github.String(unknown)}}}, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, status(err), "unknown parent")
	_, _, err = c.Git.GetBlob(ctx, "octo", "hello", unknown)
	assert.Equal(t, http.StatusNotFound, status(err))
	_, _, err = c.Git.GetCommit(ctx, "octo", "hello", tree)
	assert.Equal(t, http.StatusNotFound, status(err), "a tree is not a commit")
	_, _, err = c.Repositories.GetCommit(ctx, "octo", "hello", unknown, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, status(err))

	for _, tc := range []struct{ token string }{{"pat_reader"}} {
		r := g.Client(t, tc.token)
		_, _, err = r.Git.CreateBlob(ctx, "octo", "hello", &github.Blob{Content: github.String("x"), Encoding: github.String("utf-8")})
		assert.Equal(t, http.StatusForbidden, status(err), "a reader cannot write")
		_, _, err = r.Git.UpdateRef(ctx, "octo", "hello", &github.Reference{Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: github.String(head)}}, true)
		assert.Equal(t, http.StatusForbidden, status(err))
	}
	now, _, err := repo.Head(ctx, "main")
	require.NoError(t, err)
	assert.Equal(t, head, now)
}

// TestGitDataPrivateRepoHidden: a private repository's Git Data API is
// 404 to one who cannot read it.
func TestGitDataPrivateRepoHidden(t *testing.T) {
	t.Parallel()
	g, _ := gitDataFixture(t, Private(true))
	_, _, err := g.Client(t, "pat_stranger").Git.CreateBlob(t.Context(), "octo", "hello", &github.Blob{Content: github.String("x")})
	assert.Equal(t, http.StatusNotFound, status(err))
}

// TestGitDataPushedSignatureIsUnknownKey: a commit pushed with a gpgsig
// header the double cannot check reads back as unknown_key.
func TestGitDataPushedSignatureIsUnknownKey(t *testing.T) {
	t.Parallel()
	g, repo := gitDataFixture(t)
	ctx := t.Context()
	head, _, err := repo.Head(ctx, "main")
	require.NoError(t, err)
	raw := "tree " + gitOut(t, repo.Dir(), "rev-parse", head+"^{tree}") + "\nparent " + head +
		"\nauthor a <a@example.com> 1 +0000\ncommitter a <a@example.com> 1 +0000\ngpgsig -----BEGIN SSH SIGNATURE-----\n x\n -----END SSH SIGNATURE-----\n\nsigned\n"
	cmd := exec.CommandContext(ctx, "git", "hash-object", "-t", "commit", "-w", "--stdin")
	cmd.Dir, cmd.Stdin = repo.Dir(), strings.NewReader(raw)
	sha, err := cmd.Output()
	require.NoError(t, err)
	rc, _, err := g.Client(t, "pat_alice").Repositories.GetCommit(ctx, "octo", "hello", strings.TrimSpace(string(sha)), nil)
	require.NoError(t, err)
	assert.False(t, rc.GetCommit().GetVerification().GetVerified())
	assert.Equal(t, "unknown_key", rc.GetCommit().GetVerification().GetReason())
}

// gitOut runs git in the bare repository dir and returns its trimmed
// output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "git %v", args)
	return strings.TrimSpace(string(out))
}
