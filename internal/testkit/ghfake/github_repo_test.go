package ghfake

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAddRepoErrors(t *testing.T) {
	t.Parallel()
	g, _ := newTestGitHub(t, nil)
	tests := []struct {
		name, owner, repo string
		opts              []RepoOption
		wantErr           string
	}{
		{name: "exists", owner: "owner", repo: "repo", wantErr: "already exists"},
		{name: "exists in other case", owner: "OWNER", repo: "Repo", wantErr: "already exists"},
		{name: "slash in name", owner: "owner", repo: "a/b", wantErr: "owner/name"},
		{name: "empty owner", owner: "", repo: "x", wantErr: "owner/name"},
		{name: "fork of nothing", owner: "forker", repo: "x", opts: []RepoOption{ForkOf("owner/nope")}, wantErr: "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := g.AddRepo(t.Context(), tt.owner, tt.repo, nil, tt.opts...)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestRepoCommit(t *testing.T) {
	t.Parallel()
	g := NewGitHub(t)
	tests := []struct {
		name, branch string
		files        map[string]string
		wantFiles    map[string]string
	}{
		{
			name: "new branch starts at the default branch", branch: "feature",
			files:     map[string]string{"c.txt": "c\n"},
			wantFiles: map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "c.txt": "c\n"},
		},
		{
			name: "existing branch moves forward", branch: "main",
			files:     map[string]string{"a.txt": "changed\n"},
			wantFiles: map[string]string{"a.txt": "changed\n", "dir/b.txt": "b\n"},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			r := g.MustAddRepo(t, "owner", fmt.Sprintf("repo%d", i), map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
			mainSHA, ok, err := r.Head(ctx, "main")
			require.NoError(t, err)
			require.True(t, ok)
			sha, err := r.Commit(ctx, tt.branch, tt.name, tt.files)
			require.NoError(t, err)
			head, _, err := r.Head(ctx, tt.branch)
			require.NoError(t, err)
			assert.Equal(t, sha, head)
			parent, err := g.runGit(ctx, r.Dir(), nil, "rev-parse", sha+"^")
			require.NoError(t, err)
			assert.Equal(t, mainSHA, parent)
			for path, want := range tt.wantFiles {
				got, ok, err := g.fileAt(ctx, r.Dir(), tt.branch, path)
				require.NoError(t, err)
				require.True(t, ok, "%s missing", path)
				assert.Equal(t, strings.TrimSuffix(want, "\n"), got)
			}
			_, ok, err = g.fileAt(ctx, r.Dir(), tt.branch, "nope.txt")
			require.NoError(t, err)
			assert.False(t, ok)
		})
	}
	r := g.MustAddRepo(t, "owner", "repo", nil)
	_, err := r.Commit(t.Context(), "x", "bad", map[string]string{"a\nb": "x"})
	assert.ErrorContains(t, err, "cannot be committed")
	assert.Equal(t, filepath.Join("owner", "repo.git"), filepath.Join(filepath.Base(filepath.Dir(r.Dir())), filepath.Base(r.Dir())))
	assert.Equal(t, g.URL+"/git/owner/repo.git", r.CloneURL())
}
