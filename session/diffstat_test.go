package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

func TestDiffStat(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "gone.txt": "x\ny\n"})
	from := testkit.Git(t, repo, "rev-parse", "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n2\nthree\nfour\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(repo, "gone.txt")))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "logo.png"), []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0}, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "new file.txt"), []byte("tab\there\n"), 0o644))
	testkit.Git(t, repo, "add", "-A")
	testkit.Git(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "change")
	to := testkit.Git(t, repo, "rev-parse", "HEAD")

	ds, err := diffStat(t.Context(), gitRunner{env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}}, repo, from, to)
	require.NoError(t, err)
	assert.Equal(t, &DiffStat{Files: 4, Insertions: 3, Deletions: 3}, ds, "a.txt +2 -1, gone.txt -2, new file.txt +1, logo.png binary")

	_, err = diffStat(t.Context(), gitRunner{env: []string{"PATH=" + os.Getenv("PATH")}}, repo, "0000000000000000000000000000000000000000", to)
	assert.ErrorContains(t, err, "count the change")
}
