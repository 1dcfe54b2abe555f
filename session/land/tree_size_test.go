package land

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

func TestParseLsTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		out     string
		want    []treeEntry
		wantErr string
	}{
		{name: "empty"},
		{name: "blobs and a submodule",
			out: "100644 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391       0\ta.txt\x00" +
				"100755 blob 0123456789012345678901234567890123456789 104857601\tdir/with space\tand tab\x00" +
				"160000 commit 0123456789012345678901234567890123456789       -\tsub\x00",
			want: []treeEntry{{path: "a.txt", size: 0}, {path: "dir/with space\tand tab", size: 104857601}, {path: "sub", size: -1}}},
		{name: "no path", out: "100644 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 0\x00", wantErr: "unexpected entry"},
		{name: "no size", out: "100644 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\ta\x00", wantErr: "unexpected entry"},
		{name: "bad size", out: "100644 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 -5\ta\x00", wantErr: "bad size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseLsTree(tt.out)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseLsTree(f *testing.F) {
	f.Add("100644 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391       0\ta.txt\x00")
	f.Add("160000 commit 0123456789012345678901234567890123456789       -\tsub\x00")
	f.Add("100644 blob x 12\ta\tb\x00\x00")
	f.Fuzz(func(t *testing.T, out string) {
		entries, err := parseLsTree(out)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.path == "" || e.size < -1 {
				t.Fatalf("entry %+v from %q", e, out)
			}
		}
	})
}

func TestOversized(t *testing.T) {
	t.Parallel()
	entries := []treeEntry{
		{path: "small", size: 10},
		{path: "at-limit", size: MaxBlob},
		{path: "over", size: MaxBlob + 1},
		{path: "old-over", size: MaxBlob + 1},
		{path: "sub", size: -1},
	}
	tests := []struct {
		name    string
		changed []string
		want    []string
	}{
		{name: "nothing changed"},
		{name: "small and at the limit", changed: []string{"small", "at-limit", "sub"}},
		{name: "one over", changed: []string{"small", "over"}, want: []string{"over"}},
		{name: "a removed path", changed: []string{"gone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, oversized(entries, tt.changed, MaxBlob))
		})
	}
	assert.Equal(t, int64(100<<20), int64(MaxBlob), "GitHub's limit for a file")
}

// TestOversizedReadsTheTree: the sizes come from the tree given, of the
// changed paths only; a tree git cannot list is an error that says so.
func TestOversizedReadsTheTree(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
	big, err := Git(testGit).Oversized(t.Context(), repo, "HEAD", []string{"a.txt", "gone.txt"})
	require.NoError(t, err)
	assert.Empty(t, big)
	_, err = Git(testGit).Oversized(t.Context(), repo, "0000000000000000000000000000000000000000", []string{"a.txt"})
	assert.ErrorContains(t, err, "list the files of the tree to land")
}
