package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"old.txt":     "old\n",
		"dir/keep.go": "package dir\n",
		".git/config": "[core]\n",
	}
	tests := []struct {
		name      string
		args      Args
		has       string
		wantFile  string // the path whose content must then be content
		content   string
		untouched string // a file that must keep its content
	}{
		{name: "new file", args: Args{"path": "new.txt", "content": "hi\n"}, has: "created new.txt (3 bytes, 1 lines)", wantFile: "new.txt", content: "hi\n"},
		{name: "new file in new dirs", args: Args{"path": "a/b/c.go", "content": "package c"}, has: "created a/b/c.go", wantFile: "a/b/c.go", content: "package c"},
		{name: "replace", args: Args{"path": "old.txt", "content": "new\nnew\n"}, has: "wrote old.txt (8 bytes, 2 lines)", wantFile: "old.txt", content: "new\nnew\n"},
		{name: "empty content", args: Args{"path": "old.txt", "content": ""}, has: "wrote old.txt (0 bytes, 0 lines)", wantFile: "old.txt", content: ""},
		{name: "same content", args: Args{"path": "old.txt", "content": "old\n"}, has: "already has this content", wantFile: "old.txt", content: "old\n"},
		{name: "a directory", args: Args{"path": "dir", "content": "x"}, has: "dir is a directory", untouched: "dir/keep.go"},
		{name: "the root", args: Args{"path": "", "content": "x"}, has: ". is a directory"},
		{name: "under a file", args: Args{"path": "old.txt/x", "content": "x"}, has: "cannot write old.txt/x: not a directory", untouched: "old.txt"},
		{name: "outside", args: Args{"path": "../escape.txt", "content": "x"}, has: "leaves the workspace"},
		{name: "into .git", args: Args{"path": ".git/config", "content": "[core]\nhooksPath=/tmp\n"}, has: "inside .git", untouched: ".git/config"},
		{name: "into .git hooks", args: Args{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}, has: "inside .git"},
		{name: "content missing", args: Args{"path": "x.txt"}, has: `write_file: argument "content" is required (a string)`},
		{name: "content a number", args: Args{"path": "x.txt", "content": int64(42)}, has: `must be a string, got the number 42`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, files)
			r := runTool(t, env, "write_file", tt.args)
			assert.Contains(t, r.Output, tt.has)
			if tt.wantFile != "" {
				assert.Equal(t, tt.content, readFileT(t, env, tt.wantFile))
				assert.Equal(t, tt.wantFile, r.Target)
			}
			if tt.untouched != "" {
				assert.Equal(t, files[tt.untouched], readFileT(t, env, tt.untouched))
			}
			_, err := os.Stat(filepath.Join(filepath.Dir(env.Workspace.Root()), "escape.txt"))
			assert.ErrorIs(t, err, fs.ErrNotExist)
		})
	}
}

func TestWriteFileModes(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	root := env.Workspace.Root()
	require.NoError(t, os.Chmod(filepath.Join(root, "run.sh"), 0o755))

	r := runTool(t, env, "write_file", Args{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
	require.Contains(t, r.Output, "wrote", r.Output)
	fi, err := os.Stat(filepath.Join(root, "run.sh"))
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o755), fi.Mode().Perm(), "an existing file keeps its mode")

	r = runTool(t, env, "write_file", Args{"path": "pkg/new.go", "content": "package pkg\n"})
	require.Contains(t, r.Output, "created", r.Output)
	fi, err = os.Stat(filepath.Join(root, "pkg", "new.go"))
	require.NoError(t, err)
	assert.Zero(t, fi.Mode().Perm()&0o133, "a new file is at most 0644")
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm()&0o600)
	di, err := os.Stat(filepath.Join(root, "pkg"))
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), di.Mode().Perm()&0o700)
	assert.Zero(t, di.Mode().Perm()&0o022, "a new directory is at most 0755")
}

func TestWriteFileSymlinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "target"), []byte("original\n"), 0o644))
	env := newEnv(t, map[string]string{"real.txt": "a\n"})
	root := env.Workspace.Root()
	require.NoError(t, os.Symlink("real.txt", filepath.Join(root, "alias")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "target"), filepath.Join(root, "out")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "new"), filepath.Join(root, "dangling")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "outdir")))

	r := runTool(t, env, "write_file", Args{"path": "alias", "content": "b\n"})
	assert.Equal(t, "b\n", readFileT(t, env, "real.txt"), "a symlink inside writes through to its target inside")

	for _, p := range []string{"out", "dangling", "outdir/new", "outdir/target"} {
		r = runTool(t, env, "write_file", Args{"path": p, "content": "pwned\n"})
		assert.Contains(t, r.Output, "leads outside the workspace", p)
	}
	data, err := os.ReadFile(filepath.Join(outside, "target"))
	require.NoError(t, err)
	assert.Equal(t, "original\n", string(data))
	_, err = os.Stat(filepath.Join(outside, "new"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}
