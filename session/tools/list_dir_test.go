package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreagent/core/toon"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListDir(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"go.mod":         "module x\n",
		"cmd/main.go":    "package main\n",
		"cmd/sub/a.go":   "package sub\n",
		".git/HEAD":      "ref: refs/heads/main\n",
		"empty/.keep":    "",
		"README.md":      "# x\n",
		"z file.txt":     "12345",
		"cmd/sub/.git/x": "",
		"cmd/sub/b_test": "b",
	}
	tests := []struct {
		name    string
		args    Args
		want    string // the whole output, when set
		has     []string
		hasNot  []string
		target  string
		symlink bool
	}{
		{
			name: "root by default", args: Args{}, target: ".",
			want: "path: .\nentries[6]{name,type,size}:\n  README.md,file,4\n  cmd,dir,0\n  empty,dir,0\n  go.mod,file,9\n  link,symlink,3\n  z file.txt,file,5",
		},
		{name: "subdirectory", args: Args{"path": "cmd"}, target: "cmd", want: "path: cmd\nentries[2]{name,type,size}:\n  main.go,file,13\n  sub,dir,0"},
		{name: "nested .git omitted", args: Args{"path": "cmd/sub"}, has: []string{"a.go,file", "b_test,file"}, hasNot: []string{".git"}},
		{name: "trailing slash", args: Args{"path": "cmd/"}, target: "cmd", has: []string{"main.go"}},
		{name: "a file", args: Args{"path": "go.mod"}, has: []string{"go.mod is a file", "read_file"}},
		{name: "missing", args: Args{"path": "nope"}, has: []string{"nope does not exist"}},
		{name: "outside", args: Args{"path": ".."}, has: []string{`path ".." refused`}},
		{name: "the .git directory", args: Args{"path": ".git"}, has: []string{"refused", ".git"}},
		{name: "through a symlink inside", args: Args{"path": "link"}, target: "link", has: []string{"main.go,file"}},
		{name: "only a hidden file", args: Args{"path": "empty"}, has: []string{".keep,file,0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, files)
			require.NoError(t, os.Symlink("cmd", filepath.Join(env.Workspace.Root(), "link")))
			r := runTool(t, env, "list_dir", tt.args)
			if tt.want != "" {
				assert.Equal(t, tt.want, r.Output)
			}
			for _, h := range tt.has {
				assert.Contains(t, r.Output, h)
			}
			for _, h := range tt.hasNot {
				assert.NotContains(t, r.Output, h)
			}
			if tt.target != "" {
				assert.Equal(t, tt.target, r.Target)
			}
		})
	}
}

func TestListDirDecodes(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"a,b.txt": "x", "-dash": "yy", "sub/f": ""})
	r := runTool(t, env, "list_dir", Args{"path": "."})
	v, err := toon.Decode([]byte(r.Output))
	require.NoError(t, err, "the listing is valid TOON:\n%s", r.Output)
	obj, ok := v.(toon.Object)
	require.True(t, ok)
	entries, _ := obj.Get("entries")
	rows, ok := entries.([]any)
	require.True(t, ok)
	require.Len(t, rows, 3)
	var names []string
	for _, row := range rows {
		name, _ := row.(toon.Object).Get("name")
		names = append(names, name.(string))
	}
	assert.Equal(t, []string{"-dash", "a,b.txt", "sub"}, names)
}

func TestListDirEmptyAndCapped(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	require.NoError(t, os.Mkdir(filepath.Join(env.Workspace.Root(), "void"), 0o755))
	r := runTool(t, env, "list_dir", Args{"path": "void"})
	assert.Contains(t, r.Output, "the directory is empty")

	many := map[string]string{}
	for i := range 612 {
		many[fmt.Sprintf("d/f%04d", i)] = ""
	}
	env = newEnv(t, many)
	env.OutputLimit = 1 << 20
	r = runTool(t, env, "list_dir", Args{"path": "d"})
	assert.Contains(t, r.Output, "entries[500]{name,type,size}:")
	assert.Contains(t, r.Output, "500 of 612 entries shown")
	assert.Contains(t, r.Output, "f0499,file,0")
	assert.NotContains(t, r.Output, "f0500")
	assert.Equal(t, 500, strings.Count(r.Output, ",file,0"))
}
