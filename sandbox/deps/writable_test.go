package deps

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWritableDirs: the mount points of the writable layers are made in
// the install when missing; a link or a file in their place is neither
// followed nor replaced, and gets no layer.
func TestWritableDirs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, host string)
		want  []string
	}{
		{name: "made when missing", want: []string{"/ws/node_modules/.cache", "/ws/node_modules/.vite"}},
		{name: "kept when there", setup: func(t *testing.T, host string) {
			require.NoError(t, os.Mkdir(filepath.Join(host, ".cache"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(host, ".cache", "old"), nil, 0o644))
		}, want: []string{"/ws/node_modules/.cache", "/ws/node_modules/.vite"}},
		{name: "a link is not followed", setup: func(t *testing.T, host string) {
			require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(host, ".cache")))
		}, want: []string{"/ws/node_modules/.vite"}},
		{name: "a file is not a directory", setup: func(t *testing.T, host string) {
			require.NoError(t, os.WriteFile(filepath.Join(host, ".vite"), nil, 0o644))
		}, want: []string{"/ws/node_modules/.cache"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := filepath.Join(t.TempDir(), "node_modules")
			require.NoError(t, os.Mkdir(host, 0o755))
			if tt.setup != nil {
				tt.setup(t, host)
			}
			assert.Equal(t, tt.want, writableDirs(host, "/ws/node_modules", nodeWritable))
			for _, d := range tt.want {
				// The mount point's mode is the Docker layer's (copied up).
				fi, err := os.Lstat(filepath.Join(host, filepath.Base(d)))
				require.NoError(t, err)
				assert.Equal(t, os.ModeDir|os.ModeSticky|0o777, fi.Mode(), d)
			}
			if fi, err := os.Lstat(filepath.Join(host, ".cache")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				target, err := os.Readlink(filepath.Join(host, ".cache"))
				require.NoError(t, err)
				st, err := os.Stat(target)
				require.NoError(t, err)
				assert.Zero(t, st.Mode()&os.ModeSticky, "the link's target was opened to all")
				entries, err := os.ReadDir(target)
				require.NoError(t, err)
				assert.Empty(t, entries, "nothing was made where the link points")
			}
		})
	}
	t.Run("no install", func(t *testing.T) {
		t.Parallel()
		missing := filepath.Join(t.TempDir(), "node_modules")
		assert.Empty(t, writableDirs(missing, "/ws/node_modules", nodeWritable))
		assert.NoDirExists(t, missing, "nothing is made where there is no install")
	})
}
