package testclass

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"
)

// goTests are the names of the top-level test and fuzz functions a Go
// test file declares (func TestX(t *testing.T), func FuzzX(f
// *testing.F)), in the file's order, as go test would run them; nil when
// the file does not parse. It reads src alone: nothing is run or imported.
func goTests(src string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "x_test.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Type.TypeParams != nil || fn.Type.Params == nil || len(fn.Type.Params.List) != 1 || fn.Type.Results != nil {
			continue
		}
		name := fn.Name.Name
		switch {
		case isTestName(name, "Test") && isTestingParam(fn, "T"):
			names = append(names, name)
		case isTestName(name, "Fuzz") && isTestingParam(fn, "F"):
			names = append(names, name)
		}
	}
	return names
}

// isTestName reports whether name is prefix followed by nothing or by a
// character that is not a lower-case letter, go test's rule.
func isTestName(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// isTestingParam reports whether fn's one parameter is *testing.<kind>
// (or *<alias>.<kind>: the import may be renamed).
func isTestingParam(fn *ast.FuncDecl, kind string) bool {
	p := fn.Type.Params.List[0]
	if len(p.Names) > 1 {
		return false
	}
	star, ok := p.Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == kind
}
