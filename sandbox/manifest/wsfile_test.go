package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadWorkspaceFile(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "sub", "go.mod"), []byte("module x\n"), 0o644))
	require.NoError(t, os.Symlink("sub", filepath.Join(ws, "linked")))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(ws, "passwd")))
	tests := []struct {
		name, path, want, wantErr string
	}{
		{name: "regular", path: "sub/go.mod", want: "module x\n"},
		{name: "missing", path: "nope", wantErr: "does not exist"},
		{name: "link as the last component", path: "passwd", wantErr: "symbolic link"},
		{name: "link as a directory", path: "linked/go.mod", wantErr: "symbolic link"},
		{name: "climbs out", path: "../x", wantErr: "not a path inside the workspace"},
		{name: "absolute", path: "/etc/passwd", wantErr: "not a path inside the workspace"},
		{name: "a directory", path: "sub", wantErr: "is a directory"},
		{name: "too big", path: "sub/go.mod", wantErr: "more than the 4 core reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			max := int64(MaxModFileSize)
			if strings.HasPrefix(tt.name, "too big") {
				max = 4
			}
			b, err := ReadWorkspaceFile(ws, tt.path, max)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
		})
	}
}
