package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

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
	for i := range 10000 {
		fmt.Fprintf(&b, "line %05d 012345678901234567890123456789\n", i+1)
	}
	file := b.String()
	long := strings.Repeat("é", 5000) + "\n"
	tests := []struct {
		name     string
		args     Args
		limit    int
		wantHead string
		wantTail string
		maxLen   int
	}{
		{name: "a page without end_line", args: Args{"path": "big.txt"}, limit: 4096,
			wantHead: "big.txt: lines 1-30 of 10000\nline 00001 ", wantTail: "line 00030 012345678901234567890123456789\n[lines 31-10000 of 10000 not shown; read on with start_line: 31]", maxLen: 1536},
		{name: "a page from start_line", args: Args{"path": "big.txt", "start_line": int64(44)}, limit: 4096,
			wantHead: "big.txt: lines 44-73 of 10000\nline 00044 ", wantTail: "read on with start_line: 74]", maxLen: 1536},
		{name: "end_line reads up to the limit", args: Args{"path": "big.txt", "end_line": int64(10000)}, limit: 4096,
			wantHead: "big.txt: lines 1-91 of 10000\n", wantTail: "[lines 92-10000 of 10000 not shown; read on with start_line: 92]", maxLen: 4096},
		{name: "a range that fits is whole", args: Args{"path": "big.txt", "start_line": int64(100), "end_line": int64(110)}, limit: 4096,
			wantHead: "big.txt: lines 100-110 of 10000\nline 00100 ", wantTail: "line 00110 012345678901234567890123456789\n", maxLen: 4096},
		{name: "one line longer than a page", args: Args{"path": "long.txt"}, limit: 4096,
			wantHead: "long.txt: lines 1-1 of 1\néé", wantTail: "[line 1 is cut: only its first 1280 bytes fit in one result]", maxLen: 1536},
	}
	env := newEnv(t, map[string]string{"big.txt": file, "long.txt": long})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := *env
			e.OutputLimit = tt.limit
			r := runTool(t, &e, "read_file", tt.args)
			assert.LessOrEqual(t, len(r.Output), tt.maxLen)
			assert.True(t, strings.HasPrefix(r.Output, tt.wantHead), "output starts %q", r.Output[:min(len(r.Output), 80)])
			assert.True(t, strings.HasSuffix(r.Output, tt.wantTail), "output ends %q", r.Output[max(0, len(r.Output)-120):])
			assert.True(t, utf8.ValidString(r.Output))
		})
	}
}

// TestReadFileReadOn follows the read-on line page by page and gets the
// whole file back.
func TestReadFileReadOn(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "%d %s\n", i, strings.Repeat("x", i%70))
	}
	env := newEnv(t, map[string]string{"f.txt": b.String()})
	env.OutputLimit = 6000
	var got strings.Builder
	next := regexp.MustCompile(`read on with start_line: (\d+)\]$`)
	start := int64(1)
	for pages := 0; ; pages++ {
		require.Less(t, pages, 3000, "read on never ends")
		r := runTool(t, env, "read_file", Args{"path": "f.txt", "start_line": start})
		header, body, _ := strings.Cut(r.Output, "\n")
		require.True(t, strings.HasPrefix(header, fmt.Sprintf("f.txt: lines %d-", start)), header)
		m := next.FindStringSubmatch(body)
		if m == nil {
			got.WriteString(body)
			break
		}
		got.WriteString(body[:strings.LastIndex(body, "[lines ")])
		n, err := strconv.ParseInt(m[1], 10, 64)
		require.NoError(t, err)
		require.Greater(t, n, start)
		start = n
	}
	assert.Equal(t, b.String(), got.String())
}
