package tools

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadRegular(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o640))
	require.NoError(t, os.Mkdir(filepath.Join(root, "dir"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644))
	ws, err := NewWorkspace(root)
	require.NoError(t, err)
	env := &Env{Workspace: ws}
	tests := []struct {
		name, path, want string
	}{
		{name: "missing", path: "nope.txt", want: "t: nope.txt does not exist; MISSING"},
		{name: "directory", path: "dir", want: "t: dir is a directory; DIR"},
		{name: "fifo", path: "pipe", want: "t: pipe is not a regular file"},
		{name: "escape", path: "../x", want: `path "../x" refused: it leaves the workspace`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, ok, res, err := readRegular(t.Context(), env, "t", tt.path, "MISSING", "DIR")
			require.NoError(t, err)
			assert.False(t, ok)
			assert.Equal(t, tt.want, res.Output)
		})
	}
	f, ok, _, err := readRegular(t.Context(), env, "t", "a.txt", "", "")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "a.txt", f.rel)
	assert.Equal(t, "hello\n", string(f.data))
	assert.Equal(t, os.FileMode(0o640), f.mode.Perm())
}
