package testclass

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// TestOverlayNeverFollowsTheBasesLinks: where the base has a link to a
// folder outside the repository, and the head a folder of that name with
// a new test file, the file is not written through the link: git refuses
// to put it there, and the base says it could not run it.
func TestOverlayNeverFollowsTheBasesLinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	repo := testkit.GitRepo(t, map[string]string{"go.mod": "module m\n"})
	require.NoError(t, os.Symlink(outside, filepath.Join(repo, "pkg")))
	testkit.Git(t, repo, "add", "pkg")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a link")
	base := testkit.Git(t, repo, "rev-parse", "HEAD")
	testkit.Git(t, repo, "rm", "-q", "pkg")
	testkit.WriteFiles(t, repo, map[string]string{"pkg/x_test.go": "package pkg\n"})
	testkit.Git(t, repo, "add", "pkg")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a folder")
	head := testkit.Git(t, repo, "rev-parse", "HEAD")

	o := Options{Git: testGit(gitEnv(t)), Clone: repo}
	files, _, err := find(t.Context(), o.Git, repo, base, head, []string{"pkg/x_test.go"})
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.True(t, files[0].new, "the base has a link there, not the file")
	dir := filepath.Join(t.TempDir(), "base")
	err = overlay(t.Context(), o, files[0], dir, base)
	assert.ErrorContains(t, err, "the head's pkg/x_test.go cannot be put in the base's tree")
	entries, readErr := os.ReadDir(outside)
	require.NoError(t, readErr)
	assert.Empty(t, entries, "nothing was written through the link")
}
