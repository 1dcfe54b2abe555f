package land

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/session/tools"
)

// TestTreeReadsGitObjects: a tree's workflows and files are read from
// git's objects, never through a link, and never past the workflow size
// cap; the workspace's own files do not count.
func TestTreeReadsGitObjects(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{
		".github/workflows/ci.yml":         "on: push\n",
		".github/workflows/sub/nested.yml": "on: push\n",
		".github/actions/build/action.yml": "runs: {using: composite}\n",
		"big.yml":                          strings.Repeat("x", tools.MaxWorkflowSize+1),
	})
	require.NoError(t, os.Symlink(".github/actions/build/action.yml", filepath.Join(repo, "link.yml")))
	testkit.Git(t, repo, "add", "-A")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "link")
	// Written after the commit: not in the tree.
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".github/workflows/new.yml"), []byte("on: push\n"), 0o644))
	tree := Git(testGit).Tree(repo, "HEAD")

	workflows, err := tree.Workflows(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{".github/workflows/ci.yml"}, workflows, "the files directly under the directory, as committed")

	tests := []struct {
		name    string
		rel     string
		want    string
		wantErr error
	}{
		{name: "a regular file", rel: ".github/actions/build/action.yml", want: "runs: {using: composite}\n"},
		{name: "a link", rel: "link.yml", wantErr: fs.ErrNotExist},
		{name: "over the cap", rel: "big.yml", wantErr: tools.ErrTooLarge},
		{name: "a directory", rel: ".github/actions/build", wantErr: fs.ErrNotExist},
		{name: "absent", rel: "nope.yml", wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tree.Read(t.Context(), tt.rel)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}
