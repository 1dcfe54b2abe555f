package filetree

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoveWhatABoxLeft: a tree with a read-only, unreadable directory
// and a link out of it is removed; what the link names is not touched
// and not counted.
func TestRemoveWhatABoxLeft(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "keep")
	require.NoError(t, os.WriteFile(outside, []byte("outside, 20 bytes..."), 0o644))
	dir := filepath.Join(t.TempDir(), "tree")
	locked := filepath.Join(dir, "a", "locked")
	require.NoError(t, os.MkdirAll(locked, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(locked, "f"), []byte("12345"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "g"), []byte("123"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(dir, "a", "dirlink")))
	assert.Equal(t, int64(8), Size(dir), "5 + 3 bytes; links not followed")
	require.NoError(t, os.Chmod(locked, 0o000))
	require.NoError(t, os.Chmod(filepath.Join(dir, "a"), 0o555))

	require.NoError(t, Remove(dir))
	assert.NoDirExists(t, dir)
	assert.FileExists(t, outside)
	assert.Zero(t, Size(dir), "nothing there")
	require.NoError(t, Remove(dir), "nothing to remove is no error")
}
