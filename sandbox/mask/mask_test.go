package mask

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreagent/core/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScanRootOnly(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(p string, mode os.FileMode) {
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte("x"), 0o600))
		require.NoError(t, os.Chmod(filepath.Join(root, p), mode))
	}
	for _, d := range []string{"open/deeper", "secrets/inner"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	require.NoError(t, os.Mkdir(filepath.Join(root, "closed"), 0o700))
	require.NoError(t, os.Mkdir(filepath.Join(root, "listless"), 0o711))
	mk("open/public", 0o644)
	mk("open/deeper/key", 0o600)
	mk("open/deeper/public", 0o644)
	mk("open/group-only", 0o640)
	mk("closed/public", 0o644)
	mk("listless/key", 0o400)
	mk("secrets/a", 0o600)
	mk("secrets/inner/b", 0o600)
	require.NoError(t, os.Symlink("/etc/shadow", filepath.Join(root, "open", "link")))
	ro := scanRootOnly([]string{root}, CurrentCred())
	assert.ElementsMatch(t, []string{filepath.Join(root, "open/deeper/key"), filepath.Join(root, "open/group-only")}, ro.Files)
	assert.ElementsMatch(t, []string{filepath.Join(root, "closed"), filepath.Join(root, "listless"), filepath.Join(root, "secrets")}, ro.Dirs,
		"a directory of nothing but secrets is masked whole, nested ones too")
}

// What the file modes keep from core's own uid and groups needs no mask:
// the kernel keeps it from confined code too.
func TestScanRootOnlyOthersFiles(t *testing.T) {
	testkit.RequireRoot(t, "making files of another user needs root")
	t.Parallel()
	root := t.TempDir()
	for _, d := range []struct {
		path string
		mode os.FileMode
		dir  bool
	}{
		{"theirs.conf", 0o640, false}, {"theirs.d", 0o700, true}, {"theirs.d/key", 0o600, false}, {"mine", 0o600, false}, {"pub", 0o644, false},
	} {
		p := filepath.Join(root, d.path)
		if d.dir {
			require.NoError(t, os.Mkdir(p, d.mode))
		} else {
			require.NoError(t, os.WriteFile(p, []byte("x"), d.mode))
		}
		if d.path != "mine" && d.path != "pub" {
			require.NoError(t, os.Chown(p, 65534, 65534))
		}
	}
	ro := scanRootOnly([]string{root}, Cred{uid: 0, groups: []uint32{0}})
	assert.Equal(t, []string{filepath.Join(root, "mine")}, ro.Files)
	assert.Empty(t, ro.Dirs)
}
