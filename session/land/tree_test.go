package land

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

	ds, err := Git(testGit).DiffStat(t.Context(), repo, from, to)
	require.NoError(t, err)
	assert.Equal(t, &DiffStat{Files: 4, Insertions: 3, Deletions: 3}, ds, "a.txt +2 -1, gone.txt -2, new file.txt +1, logo.png binary")

	_, err = Git(testGit).DiffStat(t.Context(), repo, "0000000000000000000000000000000000000000", to)
	assert.ErrorContains(t, err, "count the change")
}

func TestAddedLines(t *testing.T) {
	t.Parallel()
	diff := "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n+++ plus\ndiff --git a/y b/y\n--- /dev/null\n+++ b/y\n@@ -0,0 +1 @@\n+y\n"
	assert.Equal(t, "new\n++ plus\ny\n", AddedLines(diff))
}

func TestSameTree(t *testing.T) {
	t.Parallel()
	const a, b = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	tests := []struct {
		name             string
		checked, landing string
		want             string // "" when it may land
	}{
		{name: "the checked tree", checked: a, landing: a},
		{name: "another tree", checked: a, landing: b, want: "not landed: the tree to land (222222222222) is not the tree the checks ran on (111111111111): why. Nothing was committed or pushed."},
		{name: "no checked tree", checked: "", landing: b, want: "not landed: no tree checked at done is recorded for this work: why. Nothing was committed or pushed."},
		{name: "nothing at all", checked: "", landing: "", want: "no tree checked at done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := SameTree(tt.checked, tt.landing, "why")
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			var te *TreeChangedError
			require.ErrorAs(t, err, &te)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
