package doclint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFlagsDocumented: every setting the CLI takes as a flag (setup's
// Settings with Flag: true) has its row in docs/sessions.md, as `--name`.
// It reads setup/settings.go's source, not the package, so the test
// compiles nothing of the engine.
func TestFlagsDocumented(t *testing.T) {
	flags, err := settingFlags(filepath.Join(root, "setup", "settings.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(flags) < 10 {
		t.Fatalf("found %d flags in setup/settings.go: its Settings are no longer {Name: Const, Flag: true} literals; teach settingFlags the new shape", len(flags))
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "sessions.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, f := range flags {
		if !strings.Contains(doc, "`--"+f+"`") && !strings.Contains(doc, "`--"+f+" ") {
			t.Errorf("docs/sessions.md does not document --%s: add its row to the flags table", f)
		}
	}
}

// settingFlags are the names of the settings in the Go file at path whose
// literal says Flag: true, their Name a constant of the same file.
func settingFlags(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	consts := map[string]string{}
	var lits []*ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) {
					if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		case *ast.CompositeLit:
			lits = append(lits, n)
		}
		return true
	})
	var flags []string
	for _, lit := range lits {
		fields := map[string]ast.Expr{}
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if key, ok := kv.Key.(*ast.Ident); ok {
					fields[key.Name] = kv.Value
				}
			}
		}
		name, isName := fields["Name"].(*ast.Ident)
		flag, isFlag := fields["Flag"].(*ast.Ident)
		if isName && isFlag && flag.Name == "true" && consts[name.Name] != "" {
			flags = append(flags, consts[name.Name])
		}
	}
	return flags, nil
}
