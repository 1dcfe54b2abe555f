package tools

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resolveFixture builds a workspace with files, a .git directory and
// symlinks of every kind, and a directory outside it.
func resolveFixture(t testing.TB, root, outside string) {
	t.Helper()
	for _, d := range []string{"sub/deep", ".git/hooks", "sub/.git"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for _, f := range []string{"a.txt", "sub/b.txt", ".git/config", "sub/.git/x"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(root, "sub"), filepath.Join(outside, "back")))
	links := map[string]string{
		"link-etc":      "/etc",
		"link-out":      outside,
		"link-rel-out":  "../" + filepath.Base(outside),
		"link-git":      ".git",
		"link-git-cfg":  ".git/config",
		"sub/link-git":  "../.git",
		"dangling-out":  filepath.Join(outside, "nope"),
		"dangling-git":  ".Git/hooks/pre-commit",
		"dangling-in":   "new.txt",
		"link-in":       "sub/b.txt",
		"link-sub":      "sub",
		"link-abs-in":   filepath.Join(root, "sub"),
		"loop":          "loop",
		"link-chain":    "link-out",
		"link-via-out":  filepath.Join(outside, "back"),
		"link-dotdot":   "sub/../..",
		"link-to-file2": "link-in",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(root, name)))
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	root := realDir(t)
	outside := realDir(t)
	resolveFixture(t, root, outside)
	ws, err := NewWorkspace(root)
	require.NoError(t, err)
	real := ws.Root()

	tests := []struct {
		name    string
		path    string
		wantRel string // when it resolves
		reason  string // part of the refusal's reason, when it is refused
	}{
		{name: "empty is the root", path: "", wantRel: "."},
		{name: "dot is the root", path: ".", wantRel: "."},
		{name: "plain file", path: "a.txt", wantRel: "a.txt"},
		{name: "cleaned", path: "./sub//deep/../b.txt", wantRel: "sub/b.txt"},
		{name: "not yet existing", path: "new/dir/file.go", wantRel: "new/dir/file.go"},
		{name: "through a file", path: "a.txt/x", wantRel: "a.txt/x"},
		{name: "dotdot", path: "..", reason: "leaves the workspace"},
		{name: "dotdot file", path: "../x", reason: "leaves the workspace"},
		{name: "dotdot after a dir", path: "a/../../x", reason: "leaves the workspace"},
		{name: "absolute outside", path: "/etc/passwd", reason: "leaves the workspace"},
		{name: "absolute slash", path: "/", reason: "leaves the workspace"},
		{name: "absolute inside", path: filepath.Join(real, "sub", "b.txt"), wantRel: "sub/b.txt"},
		{name: "absolute root", path: real, wantRel: "."},
		{name: "absolute sibling with root as prefix", path: real + "x/a", reason: "leaves the workspace"},
		{name: "git dir", path: ".git", reason: "inside .git"},
		{name: "git config", path: ".git/config", reason: "inside .git"},
		{name: "nested git", path: "sub/.git/x", reason: "inside .git"},
		{name: "git in capitals", path: ".GIT/config", reason: "inside .git"},
		{name: "git via dotdot", path: "sub/../.git/hooks", reason: "inside .git"},
		{name: "symlink to /etc", path: "link-etc", reason: "leads outside"},
		{name: "file through /etc symlink", path: "link-etc/passwd", reason: "leads outside"},
		{name: "symlink to outside dir", path: "link-out", reason: "leads outside"},
		{name: "file through outside symlink", path: "link-out/secret", reason: "leads outside"},
		{name: "relative symlink out", path: "link-rel-out/secret", reason: "leads outside"},
		{name: "symlink chain out", path: "link-chain/secret", reason: "leads outside"},
		{name: "symlink into git", path: "link-git", reason: "into .git"},
		{name: "file through git symlink", path: "link-git/config", reason: "into .git"},
		{name: "symlink to git file", path: "link-git-cfg", reason: "into .git"},
		{name: "nested symlink into git", path: "sub/link-git/hooks", reason: "into .git"},
		{name: "dangling to outside", path: "dangling-out", reason: "leads outside"},
		{name: "dangling into git any case", path: "dangling-git", reason: "into .git"},
		{name: "dangling inside", path: "dangling-in", wantRel: "dangling-in"},
		{name: "symlink to file inside", path: "link-in", wantRel: "link-in"},
		{name: "symlink to symlink inside", path: "link-to-file2", wantRel: "link-to-file2"},
		{name: "through dir symlink inside", path: "link-sub/b.txt", wantRel: "link-sub/b.txt"},
		{name: "absolute symlink inside", path: "link-abs-in/deep", wantRel: "link-abs-in/deep"},
		{name: "symlink dotdot out", path: "link-dotdot", reason: "leads outside"},
		{name: "out and back in", path: "link-via-out/b.txt", reason: "leads outside"},
		{name: "symlink loop", path: "loop/x", reason: "cannot be followed"},
		{name: "NUL byte", path: "a\x00b", reason: "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			abs, rel, err := ws.Resolve(tt.path)
			if tt.reason != "" {
				var pe *PathError
				require.True(t, errors.As(err, &pe), "want a *PathError, got %v (abs %q)", err, abs)
				assert.Equal(t, tt.path, pe.Path)
				assert.Contains(t, pe.Reason, tt.reason)
				assert.Empty(t, abs)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantRel, rel)
			assert.Equal(t, filepath.Join(real, filepath.FromSlash(tt.wantRel)), abs)
		})
	}
}

// realDir is a fresh temporary directory, symlinks resolved.
func realDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

func TestPathErrorText(t *testing.T) {
	t.Parallel()
	ws, err := NewWorkspace(t.TempDir())
	require.NoError(t, err)
	_, _, err = ws.Resolve("../x")
	require.Error(t, err)
	assert.Equal(t, `path "../x" refused: it leaves the workspace`, err.Error())
}

func TestNewWorkspace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(dir, link))
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)

	tests := []struct {
		name     string
		root     string
		wantRoot string
		wantErr  string
	}{
		{name: "directory", root: dir, wantRoot: real},
		{name: "through a symlink", root: link, wantRoot: real},
		{name: "a file", root: file, wantErr: "not a directory"},
		{name: "missing", root: filepath.Join(dir, "nope"), wantErr: "no such file"},
		{name: "the file system root", root: "/", wantErr: "root directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws, err := NewWorkspace(tt.root)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantRoot, ws.Root())
		})
	}
}
