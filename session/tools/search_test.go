package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreagent/core/toon"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSearch(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"main.go":         "package main\n\nfunc main() {\n\tgreet()\n}\n",
		"greet/greet.go":  "package greet\n\n// Greet says hello.\nfunc Greet() string { return \"hello\" }\n",
		"greet/README":    "Greet people.\r\nhello world\r\n",
		".git/config":     "[core]\nhello = secret\n",
		"sub/.git/HEAD":   "hello from nested git\n",
		"bin/tool":        "hello\x00binary",
		"long.txt":        strings.Repeat("x", 300) + "hello" + strings.Repeat("y", 300) + "\n",
		"big/huge.txt":    "hello\n" + strings.Repeat("z", 1<<20),
		"unicode.txt":     "  héllo wörld  \n",
		"empty-lines.txt": "a\n\nb\n",
	}
	tests := []struct {
		name   string
		args   Args
		want   string // the whole output, when set
		has    []string
		hasNot []string
		target string
	}{
		{
			name: "across the tree", args: Args{"pattern": "hello"}, target: "hello",
			want: "matches[4]{path,line,text}:\n" +
				"  greet/README,2,hello world\n" +
				"  greet/greet.go,3,// Greet says hello.\n" +
				"  greet/greet.go,4,\"func Greet() string { return \\\"hello\\\" }\"\n" +
				"  long.txt,1," + strings.Repeat("x", 200) + "…",
		},
		{name: "under a directory", args: Args{"pattern": `^func \w+\(`, "path": "greet"}, target: `^func \w+\( in greet`, want: "matches[1]{path,line,text}:\n  greet/greet.go,4,\"func Greet() string { return \\\"hello\\\" }\""},
		{name: "one file", args: Args{"pattern": "main", "path": "main.go"}, has: []string{"main.go,1,package main", `main.go,3,"func main() {"`}},
		{name: "through a symlinked directory", args: Args{"pattern": "Greet", "path": "link"}, has: []string{"greet/greet.go,3"}},
		{name: "no matches", args: Args{"pattern": "nothing-like-this"}, want: "no matches for nothing-like-this under ."},
		{name: "invalid pattern", args: Args{"pattern": "func ("}, has: []string{"search: invalid pattern (Go RE2 syntax)", "missing closing )"}},
		{name: "lookahead is not RE2", args: Args{"pattern": "a(?=b)"}, has: []string{"invalid pattern"}},
		{name: "long line clipped", args: Args{"pattern": "hello", "path": "long.txt"}, has: []string{strings.Repeat("x", 200) + "…"}, hasNot: []string{"hello"}},
		{name: "unicode trimmed", args: Args{"pattern": "wörld"}, has: []string{"unicode.txt,1,héllo wörld\n"}},
		{name: "empty line pattern", args: Args{"pattern": "^$", "path": "empty-lines.txt"}, want: "matches[1]{path,line,text}:\n  empty-lines.txt,2,\"\""},
		{name: "path outside", args: Args{"pattern": "root", "path": "/etc"}, has: []string{"leaves the workspace"}},
		{name: "path in .git", args: Args{"pattern": "x", "path": ".git"}, has: []string{"inside .git"}},
		{name: "missing path", args: Args{"pattern": "x", "path": "nope"}, has: []string{"nope does not exist"}},
		{name: "empty pattern", args: Args{"pattern": ""}, has: []string{`search: argument "pattern" must not be empty`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, files)
			env.OutputLimit = 1 << 20
			require.NoError(t, os.Symlink("greet", filepath.Join(env.Workspace.Root(), "link")))
			require.NoError(t, os.Symlink("main.go", filepath.Join(env.Workspace.Root(), "main-link.go")))
			r := runTool(t, env, "search", tt.args)
			if tt.want != "" {
				assert.Equal(t, tt.want, r.Output)
			}
			for _, h := range tt.has {
				assert.Contains(t, r.Output+"\n", h)
			}
			for _, h := range append(tt.hasNot, "secret", "nested git", "binary", "main-link") {
				assert.NotContains(t, r.Output, h)
			}
			if tt.target != "" {
				assert.Equal(t, tt.target, r.Target)
			}
		})
	}
}

func TestSearchCap(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 250 {
		fmt.Fprintf(&b, "match %d\n", i)
	}
	env := newEnv(t, map[string]string{"a.txt": b.String(), "b.txt": "match b\n"})
	env.OutputLimit = 1 << 20
	r := runTool(t, env, "search", Args{"pattern": "^match"})
	assert.Contains(t, r.Output, "matches[200]{path,line,text}:")
	assert.Contains(t, r.Output, "200 of 251 matches shown (51 more)")
	v, err := toon.Decode([]byte(r.Output))
	require.NoError(t, err, "search's answer is valid TOON")
	m, _ := v.(toon.Object).Get("matches")
	rows := m.([]any)
	require.Len(t, rows, 200)
	last, _ := rows[199].(toon.Object).Get("line")
	assert.Equal(t, int64(200), last)
}

func TestSearchCancelled(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"a.txt": "x\n"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := search{}.Run(ctx, env, Args{"pattern": "x"})
	require.ErrorIs(t, err, context.Canceled)
}
