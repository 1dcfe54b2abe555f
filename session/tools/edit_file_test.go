package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEditFile(t *testing.T) {
	t.Parallel()
	code := "package x\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	files := map[string]string{
		"x.go":        code,
		"crlf.txt":    "one\r\ntwo\r\n",
		"dir/y.go":    "package dir\n",
		".git/config": "[core]\n",
	}
	tests := []struct {
		name    string
		args    Args
		want    string // the whole output, when set
		has     []string
		file    string // a file to check afterwards
		content string // its content then
	}{
		{
			name: "unique replacement",
			args: Args{"path": "x.go", "old_text": "func A() int {\n\treturn 1", "new_text": "func A() int {\n\treturn 2"},
			want: "edited x.go at line 3: replaced 2 lines with 2",
			file: "x.go", content: "package x\n\nfunc A() int {\n\treturn 2\n}\n\nfunc B() int {\n\treturn 1\n}\n",
		},
		{
			name: "delete", args: Args{"path": "x.go", "old_text": "\nfunc B() int {\n\treturn 1\n}\n", "new_text": ""},
			file: "x.go", content: "package x\n\nfunc A() int {\n\treturn 1\n}\n",
		},
		{
			name: "not unique", args: Args{"path": "x.go", "old_text": "\treturn 1\n", "new_text": "\treturn 3\n"},
			want: "edit_file: old_text occurs 2 times in x.go (at lines 4, 8); include more of the surrounding lines so that it matches exactly once",
			file: "x.go", content: code,
		},
		{
			name: "not found", args: Args{"path": "x.go", "old_text": "func C()", "new_text": "func D()"},
			has: []string{"old_text was not found in x.go", "read_file", "whitespace"}, file: "x.go", content: code,
		},
		{
			name: "whitespace differs", args: Args{"path": "x.go", "old_text": "func A() int {\n    return 1", "new_text": "x"},
			has: []string{"not found", "different whitespace"}, file: "x.go", content: code,
		},
		{
			name: "CRLF file", args: Args{"path": "crlf.txt", "old_text": "one\ntwo", "new_text": "1\n2"},
			has: []string{"not found", "CRLF"}, file: "crlf.txt", content: "one\r\ntwo\r\n",
		},
		{name: "empty old_text", args: Args{"path": "x.go", "old_text": "", "new_text": "x"}, has: []string{`edit_file: argument "old_text" must not be empty`}, file: "x.go", content: code},
		{name: "same text", args: Args{"path": "x.go", "old_text": "package x", "new_text": "package x"}, has: []string{"the same", "unchanged"}},
		{name: "missing file", args: Args{"path": "nope.go", "old_text": "a", "new_text": "b"}, has: []string{"nope.go does not exist", "write_file"}},
		{name: "directory", args: Args{"path": "dir", "old_text": "a", "new_text": "b"}, has: []string{"dir is a directory"}},
		{name: "inside .git", args: Args{"path": ".git/config", "old_text": "[core]", "new_text": "[core]\nfsmonitor=x"}, has: []string{"inside .git"}, file: ".git/config", content: "[core]\n"},
		{name: "outside", args: Args{"path": "/etc/hosts", "old_text": "a", "new_text": "b"}, has: []string{"leaves the workspace"}},
		{name: "new_text missing", args: Args{"path": "x.go", "old_text": "a"}, has: []string{`argument "new_text" is required`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, files)
			r := runTool(t, env, "edit_file", tt.args)
			if tt.want != "" {
				assert.Equal(t, tt.want, r.Output)
			}
			for _, h := range tt.has {
				assert.Contains(t, r.Output, h)
			}
			if tt.file != "" {
				assert.Equal(t, tt.content, readFileT(t, env, tt.file))
			}
		})
	}
}

func TestEditFileKeepsMode(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"run.sh": "#!/bin/sh\necho a\n"})
	p := filepath.Join(env.Workspace.Root(), "run.sh")
	require.NoError(t, os.Chmod(p, 0o750))
	r := runTool(t, env, "edit_file", Args{"path": "run.sh", "old_text": "echo a", "new_text": "echo b"})
	require.Contains(t, r.Output, "edited run.sh", r.Output)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o750), fi.Mode().Perm())
	assert.Equal(t, "#!/bin/sh\necho b\n", readFileT(t, env, "run.sh"))
}

func TestOccurrenceLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		sub  string
		want string
	}{
		{name: "one per line", text: "a\nb\na\n", sub: "a", want: "1, 3"},
		{name: "two on a line", text: "aa\nb\n", sub: "a", want: "1, 1"},
		{name: "multi-line needle", text: "x\ny\nx\ny\n", sub: "x\ny", want: "1, 3"},
		{name: "many", text: "a\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\na\n", sub: "a", want: "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, ..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, occurrenceLines(tt.text, tt.sub))
		})
	}
}
