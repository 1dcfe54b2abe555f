package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, fset *token.FileSet, name, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	require.NoError(t, err)
	return f
}

func TestLongFuncs(t *testing.T) {
	t.Parallel()
	body := func(n int) string { return strings.Repeat("\tx++\n", n) }
	src := "package p\n\nvar x int\n\n" +
		"func short() {\n" + body(78) + "}\n\n" + // 80 lines: at the limit
		"func (r *T[K]) long() {\n" + body(79) + "}\n\n" + // 81 lines
		"type T[K any] struct{}\n"
	fset := token.NewFileSet()
	got := longFuncs(fset, parse(t, fset, "p/p.go", src), "p/p.go")
	assert.Equal(t, []longFunc{{name: "(*T).long", file: "p/p.go", line: 86, lines: 81}}, got)
}

func TestWideStructs(t *testing.T) {
	t.Parallel()
	src := `package p
type narrow struct{ a, b, c, d, e, f, g, h, i, j, k, l int }
type Wide struct {
	a, b, c, d, e, f int
	g, h, i, j, k, l int
	fmt.Stringer
}
`
	fset := token.NewFileSet()
	got := wideStructs(fset, parse(t, fset, "p/p.go", src), "p", "p/p.go")
	assert.Equal(t, []wideStruct{{name: "p.Wide", file: "p/p.go:3", fields: 13}}, got)
}

// TestSetFields: the fields of session.Options an entry point sets, from
// literals, assignments (through a nested group too), ++ and &, and not
// what it only reads or what another struct of the same field names gets.
func TestSetFields(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	session := parse(t, fset, "session.go", `package session
type Browser struct{ On bool }
type Options struct {
	Repo string
	Turns int
	Browser Browser
	Env map[string]string
	Timeout int
	Read int
	Flag bool
}
type Other struct{ Read int }
`)
	imp := importFunc(func(path string) (*types.Package, error) {
		return new(types.Config).Check("m/session", fset, []*ast.File{session}, nil)
	})
	user := parse(t, fset, "cli.go", `package cli
import "m/session"
func options(flag func(*bool)) session.Options {
	o := session.Options{Repo: "x"}
	o.Turns++
	o.Browser.On = true
	o.Env["a"] = "b"
	p := &o
	(*p).Timeout = 3
	flag(&o.Flag)
	var other session.Other
	other.Read = o.Read
	return o
}
`)
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	_, err := (&types.Config{Importer: imp}).Check("m/cli", fset, []*ast.File{user}, info)
	require.NoError(t, err)
	assert.Equal(t, []string{"Browser", "Env", "Flag", "Repo", "Timeout", "Turns"}, setFields([]*ast.File{user}, info, "m/session"))
}

type importFunc func(path string) (*types.Package, error)

func (f importFunc) Import(path string) (*types.Package, error) { return f(path) }

func TestReplaceFooter(t *testing.T) {
	t.Parallel()
	footer := beginMarker + "\nnew\n" + endMarker + "\n"
	tests := []struct {
		name, doc, want string
	}{
		{"first run", "# page\n\ntext\n", "# page\n\ntext\n\n" + footerHeading + "\n\n" + footer},
		{"again", "# page\n\n## Measures\n\n" + beginMarker + "\nold\n" + endMarker + "\n", "# page\n\n## Measures\n\n" + footer},
		{"text after", "a\n" + beginMarker + "\nold\n" + endMarker + "\nafter\n", "a\n" + footer + "after\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, replaceFooter(tt.doc, footer))
		})
	}
}

// TestLinters: the linters' section from their outputs, and with --quick
// the one of the footer's last run.
func TestLinters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"staticcheck.txt": "", "staticcheck.rc": "0\n",
		"deadcode.txt": "sandbox/x.go:3:6: unreachable func: f\n", "deadcode.rc": "0\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	c := config{tools: dir, date: "2026-12-05", commit: "abc"}
	got, err := c.linters("")
	require.NoError(t, err)
	assert.Contains(t, got, "staticcheck** "+" (`make staticcheck`, the tests included): clean.")
	assert.Contains(t, got, "1 lines (exit status 0):\n\n  ```\n  sandbox/x.go:3:6: unreachable func: f\n  ```")
	assert.Contains(t, got, "duplicates**: not run")
	assert.True(t, strings.HasPrefix(got, lintersBeginMarker) && strings.HasSuffix(got, lintersEndMarker), got)

	c.quick = true
	again, err := c.linters("# page\n" + beginMarker + "\n" + got + "\n" + endMarker)
	require.NoError(t, err)
	assert.Equal(t, got, again)
	none, err := c.linters("# page\n")
	require.NoError(t, err)
	assert.Contains(t, none, "have not run yet")
}

func TestReadGocognit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gocognit.txt")
	require.NoError(t, os.WriteFile(path, []byte("70\ttoon\ttypeFields\ttoon/fields.go:66:1\nnote: something\n"), 0o600))
	got, err := readGocognit(path)
	require.NoError(t, err)
	assert.Equal(t, []complexity{{score: 70, pkg: "toon", fn: "typeFields", where: "toon/fields.go:66:1"}}, got)
}
