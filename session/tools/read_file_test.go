package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	five := "one\ntwo\nthree\nfour\nfive\n"
	files := map[string]string{
		"five.txt":    five,
		"nonl.txt":    "a\nb",
		"empty.txt":   "",
		"dir/x.go":    "package x\n",
		"bin.dat":     "PNG\x00\x01\x02",
		".git/config": "[core]\n",
	}
	tests := []struct {
		name   string
		args   Args
		want   string // the whole output, when set
		has    []string
		target string
	}{
		{name: "whole file", args: Args{"path": "five.txt"}, want: "five.txt: lines 1-5 of 5 (whole file)\n" + five, target: "five.txt"},
		{name: "range", args: Args{"path": "five.txt", "start_line": int64(2), "end_line": int64(3)}, want: "five.txt: lines 2-3 of 5\ntwo\nthree\n"},
		{name: "range from JSON floats and strings", args: Args{"path": "five.txt", "start_line": float64(4), "end_line": "4"}, want: "five.txt: lines 4-4 of 5\nfour\n"},
		{name: "start only", args: Args{"path": "five.txt", "start_line": int64(5)}, want: "five.txt: lines 5-5 of 5\nfive\n"},
		{name: "end past the end clamps", args: Args{"path": "five.txt", "start_line": int64(4), "end_line": int64(99)}, want: "five.txt: lines 4-5 of 5 (end_line 99 clamped to 5, the last line)\nfour\nfive\n"},
		{name: "start below 1 clamps", args: Args{"path": "five.txt", "start_line": int64(0), "end_line": int64(1)}, want: "five.txt: lines 1-1 of 5 (start_line 0 clamped to 1)\none\n"},
		{name: "start past the end", args: Args{"path": "five.txt", "start_line": int64(9)}, want: "read_file: start_line 9 is past the end of five.txt, which has 5 lines"},
		{name: "end before start", args: Args{"path": "five.txt", "start_line": int64(3), "end_line": int64(2)}, want: "read_file: end_line 2 is before start_line 3"},
		{name: "no final newline", args: Args{"path": "nonl.txt"}, want: "nonl.txt: lines 1-2 of 2 (whole file)\na\nb\n[no newline at end of file]"},
		{name: "empty file", args: Args{"path": "empty.txt"}, want: "empty.txt: empty file (0 lines)"},
		{name: "directory", args: Args{"path": "dir"}, has: []string{"dir is a directory", "list_dir"}, target: "dir"},
		{name: "the root", args: Args{"path": "."}, has: []string{". is a directory", "list_dir"}},
		{name: "binary", args: Args{"path": "bin.dat"}, has: []string{"bin.dat is a binary file"}},
		{name: "missing", args: Args{"path": "nope.go"}, has: []string{"nope.go does not exist"}, target: "nope.go"},
		{name: "outside", args: Args{"path": "../x"}, want: `path "../x" refused: it leaves the workspace`, target: "../x"},
		{name: "inside .git", args: Args{"path": ".git/config"}, has: []string{"refused", ".git"}},
		{name: "through a file", args: Args{"path": "five.txt/x"}, has: []string{"cannot read five.txt/x: not a directory"}},
		{name: "bad start_line", args: Args{"path": "five.txt", "start_line": "one"}, want: `read_file: argument "start_line" must be an integer, got "one"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, files)
			r := runTool(t, env, "read_file", tt.args)
			if tt.want != "" {
				assert.Equal(t, tt.want, r.Output)
			}
			for _, h := range tt.has {
				assert.Contains(t, r.Output, h)
			}
			if tt.target != "" {
				assert.Equal(t, tt.target, r.Target)
			}
			assert.NotContains(t, r.Output, env.Workspace.Root(), "observations name workspace paths, not host paths")
		})
	}
}

func TestReadFileThroughSymlinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("TOKEN=abc\n"), 0o600))
	env := newEnv(t, map[string]string{"real.txt": "hello\n"})
	root := env.Workspace.Root()
	require.NoError(t, os.Symlink("real.txt", filepath.Join(root, "alias.txt")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "leak")))

	r := runTool(t, env, "read_file", Args{"path": "alias.txt"})
	assert.Equal(t, "alias.txt: lines 1-1 of 1 (whole file)\nhello\n", r.Output)

	r = runTool(t, env, "read_file", Args{"path": "leak"})
	assert.Contains(t, r.Output, "refused")
	assert.NotContains(t, r.Output, "TOKEN")
}

func TestReadFileLarge(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for range 10000 {
		b.WriteString("0123456789012345678901234567890123456789\n")
	}
	env := newEnv(t, map[string]string{"big.txt": b.String()})
	env.OutputLimit = 4096
	r := runTool(t, env, "read_file", Args{"path": "big.txt"})
	assert.LessOrEqual(t, len(r.Output), 4096)
	assert.True(t, strings.HasPrefix(r.Output, "big.txt: lines 1-10000 of 10000"))
	assert.Contains(t, r.Output, "bytes cut")
}
