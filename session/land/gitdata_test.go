package land

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/openapi"
)

func TestParseRawDiff(t *testing.T) {
	t.Parallel()
	z := strings.Repeat("0", 40)
	a := strings.Repeat("a", 40)
	tests := []struct {
		name, out string
		want      []rawChange
		wantErr   string
	}{
		{name: "none", out: ""},
		{name: "added and deleted", out: ":000000 100644 " + z + " " + a + " A\x00new file\x00:100755 000000 " + a + " " + z + " D\x00gone\x00",
			want: []rawChange{{oldMode: "000000", newMode: "100644", sha: a, status: 'A', path: "new file"}, {oldMode: "100755", newMode: "000000", sha: z, status: 'D', path: "gone"}}},
		{name: "a path with a newline", out: ":100644 120000 " + a + " " + a + " T\x00a\nb\x00",
			want: []rawChange{{oldMode: "100644", newMode: "120000", sha: a, status: 'T', path: "a\nb"}}},
		{name: "cut short", out: ":100644 100644 " + a + " " + a + " M\x00", wantErr: "ends in the middle"},
		{name: "not raw", out: "100644 blob x\x00p\x00", wantErr: "is not"},
		{name: "no path", out: ":100644 100644 " + a + " " + a + " M\x00\x00", wantErr: "is not"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseRawDiff(tt.out)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseRawDiff(f *testing.F) {
	a := strings.Repeat("a", 40)
	f.Add(":100644 100644 " + a + " " + a + " M\x00hello.txt\x00")
	f.Add(":000000 160000 " + a + " " + a + " A\x00sub\x00")
	f.Fuzz(func(t *testing.T, out string) {
		changes, err := parseRawDiff(out)
		if err != nil {
			return
		}
		for _, c := range changes {
			if c.path == "" || c.status == 0 || strings.Contains(c.path, "\x00") {
				t.Fatalf("a change without a path or a status: %+v", c)
			}
		}
	})
}

func TestParseIdent(t *testing.T) {
	t.Parallel()
	p, err := parseIdent("core <core@users.noreply.github.com> 1764896523 -0130")
	require.NoError(t, err)
	assert.Equal(t, "core", p.Name)
	assert.Equal(t, "core@users.noreply.github.com", p.Email)
	assert.Equal(t, int64(1764896523), p.When.Unix())
	assert.Equal(t, "-0130", p.When.Format("-0700"))
	for _, bad := range []string{"", "core", "core <c> x +0000", "core <c> 1 0000"} {
		_, err := parseIdent(bad)
		assert.Error(t, err, bad)
	}
}

// testGit is a Git for tests: git with no user or system configuration.
func testGit(ctx context.Context, env []string, dir, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", &gitError{args: args, msg: strings.TrimSpace(stderr.String())}
	}
	return out.String(), nil
}

type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string { return "git " + e.args[0] + ": " + e.msg }

// apiLanding is octo/hello on the testkit GitHub (and the double), a workspace cloned from
// it on the branch topic with a commit of core's that changes a file,
// deletes one, adds a binary, an executable and a symbolic link, and the
// Work that lands it with an installation token.
func apiLanding(t *testing.T) (*ghfake.GitHub, *ghfake.Repo, *Repo, *Work) {
	t.Helper()
	ctx := t.Context()
	g := ghfake.NewGitHub(t)
	repo := g.MustAddRepo(t, "octo", "hello", map[string]string{"hello.txt": "hello\n", "old.txt": "old\n"})
	g.AddExpiringToken("ghs_app", "core-app[bot]", time.Now().Add(time.Hour))
	require.NoError(t, g.SetPermission("octo", "hello", "core-app[bot]", "write"))
	client, err := gh.New(gh.Credentials{Token: "ghs_app", APIURL: g.APIURL()}, nil)
	require.NoError(t, err)
	r, err := Open(ctx, testGit, client, "octo/hello")
	require.NoError(t, err)
	start, _, err := repo.Head(ctx, "main")
	require.NoError(t, err)
	ws := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, r.Clone(ctx, ws, Target{Base: "main", SHA: start, Branch: "topic"}))
	run := func(args ...string) string {
		out, err := testGit(ctx, nil, ws, "", args...)
		require.NoError(t, err)
		return strings.TrimSpace(out)
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hi\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(ws, "old.txt")))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "bin", "data"), []byte{0, 1, 0xfe, 0xff}, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "bin", "run"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Symlink("../hello.txt", filepath.Join(ws, "bin", "link")))
	run("add", "-A")
	run(append(GitIdentity(), "commit", "--quiet", "-m", "Say hi\n\nCo-authored-by: alice <alice@example.com>")...)
	commit := run("rev-parse", "HEAD")
	w := &Work{
		Record:  Record{ID: "s1", Workspace: ws, Branch: "topic", StartCommit: start, Commit: commit},
		Verdict: Verdict{Tree: run("rev-parse", "HEAD^{tree}")},
	}
	return g, repo, r, w
}

// TestPushAPILandsTheCheckedTree: every kind of change lands through the
// API as the same tree, with the same message and author, signed by
// GitHub for the App; the workspace's branch is the landed commit.
func TestPushAPILandsTheCheckedTree(t *testing.T) {
	t.Parallel()
	g, repo, r, w := apiLanding(t)
	local := w.Commit
	require.NoError(t, r.pushAPI(t.Context(), w))
	head, ok, err := repo.Head(t.Context(), "topic")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, head, w.Commit)
	assert.NotEqual(t, local, w.Commit, "GitHub's signature makes another commit of the same tree")
	bare := func(args ...string) string {
		out, err := testGit(t.Context(), nil, repo.Dir(), "", args...)
		require.NoError(t, err)
		return strings.TrimSpace(out)
	}
	assert.Equal(t, w.Verdict.Tree, bare("rev-parse", head+"^{tree}"))
	assert.Equal(t, "core <core@users.noreply.github.com>|Say hi\n\nCo-authored-by: alice <alice@example.com>", bare("log", "-1", "--format=%an <%ae>|%B", head))
	assert.Equal(t, "verified (signed by GitHub for the App)", w.Signature)
	out, err := testGit(t.Context(), nil, w.Workspace, "", "rev-parse", "refs/heads/topic")
	require.NoError(t, err)
	assert.Equal(t, head, strings.TrimSpace(out))
	t.Run("requests valid against GitHub's description", func(t *testing.T) {
		assert.Positive(t, openapi.RequireValid(t, openapi.GitHub(t), g, "/repos/octo/hello/git/"))
	})
}

// TestPushAPIRefusesAnUncheckedTree: a commit whose tree is not the one
// the checks ran on lands nothing, and the error names both trees.
func TestPushAPIRefusesAnUncheckedTree(t *testing.T) {
	t.Parallel()
	_, repo, r, w := apiLanding(t)
	checked := strings.Repeat("c", 40)
	w.Verdict.Tree = checked
	err := r.pushAPI(t.Context(), w)
	require.Error(t, err)
	assert.Contains(t, err.Error(), checked)
	assert.Contains(t, err.Error(), "nothing was pushed")
	_, ok, err := repo.Head(t.Context(), "topic")
	require.NoError(t, err)
	assert.False(t, ok, "no branch was made")
}

// TestPushAPILandsAgainOnWhatLanded: a second landing (a resumed
// session's) on the commit the first one landed makes only its own
// commit: the landed one, signed by GitHub, is not made again.
func TestPushAPILandsAgainOnWhatLanded(t *testing.T) {
	t.Parallel()
	_, repo, r, w := apiLanding(t)
	require.NoError(t, r.pushAPI(t.Context(), w))
	first := w.Commit
	run := func(args ...string) string {
		out, err := testGit(t.Context(), nil, w.Workspace, "", args...)
		require.NoError(t, err)
		return strings.TrimSpace(out)
	}
	require.NoError(t, os.WriteFile(filepath.Join(w.Workspace, "hello.txt"), []byte("hi again\n"), 0o644))
	run("add", "-A")
	run(append(GitIdentity(), "commit", "--quiet", "-m", "Again")...)
	w.Commit, w.Verdict.Tree = run("rev-parse", "HEAD"), run("rev-parse", "HEAD^{tree}")
	require.NoError(t, r.pushAPI(t.Context(), w))
	head, _, err := repo.Head(t.Context(), "topic")
	require.NoError(t, err)
	assert.Equal(t, head, w.Commit)
	out, err := testGit(t.Context(), nil, repo.Dir(), "", "rev-parse", head+"^")
	require.NoError(t, err)
	assert.Equal(t, first, strings.TrimSpace(out), "on the first landed commit")
}

// TestPushAPIRefusesAFileOverGitHubsLimit: a file over 100 MB is named,
// nothing is sent of it, and nothing lands.
func TestPushAPIRefusesAFileOverGitHubsLimit(t *testing.T) {
	t.Parallel()
	_, repo, r, w := apiLanding(t)
	f, err := os.Create(filepath.Join(w.Workspace, "big.bin"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(gh.MaxBlob+1))
	require.NoError(t, f.Close())
	run := func(args ...string) string {
		out, err := testGit(t.Context(), nil, w.Workspace, "", args...)
		require.NoError(t, err)
		return strings.TrimSpace(out)
	}
	run("add", "big.bin")
	run(append(GitIdentity(), "commit", "--quiet", "-m", "Big")...)
	w.Commit, w.Verdict.Tree = run("rev-parse", "HEAD"), run("rev-parse", "HEAD^{tree}")
	err = r.pushAPI(t.Context(), w)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "big.bin is 104857601 bytes, over GitHub's limit")
	assert.Contains(t, err.Error(), "nothing was pushed")
	_, ok, err := repo.Head(t.Context(), "topic")
	require.NoError(t, err)
	assert.False(t, ok, "no branch was made")
}
