package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// pkg is one package of the module as go list sees it.
type pkg struct {
	path    string // relative to the module: session/tools
	dir     string
	imports []string // every import path, the standard library's too
	files   []string // the non-test Go files of its folder
	build   []string // those go list builds on this machine
	lines   int
}

// measures are the figures the footer prints, but the linters'.
type measures struct {
	module  string
	pkgs    []*pkg
	funcs   []longFunc
	structs []wideStruct
	setters []setter
	how     string // how the setters were found
}

type longFunc struct {
	name, file  string // (*agentConn).run, sandbox/boxagent.go
	line, lines int
}

type wideStruct struct {
	name   string // session.Options
	file   string
	fields int
}

// measure reads the module at root.
func measure(root string) (*measures, error) {
	module, pkgs, err := list(root)
	if err != nil {
		return nil, err
	}
	m := &measures{module: module, pkgs: pkgs}
	fset := token.NewFileSet()
	for _, p := range pkgs {
		for _, name := range p.files {
			rel := filepath.ToSlash(filepath.Join(p.path, name))
			if p.path == "." {
				rel = name
			}
			src, err := os.ReadFile(filepath.Join(p.dir, name))
			if err != nil {
				return nil, err
			}
			p.lines += bytes.Count(src, []byte("\n"))
			f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			m.funcs = append(m.funcs, longFuncs(fset, f, rel)...)
			if p.path == "setup" || p.path == "session" || strings.HasPrefix(p.path, "session/") {
				m.structs = append(m.structs, wideStructs(fset, f, p.path, rel)...)
			}
		}
	}
	slices.SortFunc(m.funcs, func(a, b longFunc) int { return b.lines - a.lines })
	slices.SortFunc(m.structs, func(a, b wideStruct) int { return b.fields - a.fields })
	m.setters, m.how, err = optionSetters(root, module, pkgs)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// list asks go list for the module's packages and reads each folder's
// non-test Go files (whatever their build constraints).
func list(root string) (string, []*pkg, error) {
	cmd := exec.Command("go", "list", "-f", "{{.Module.Path}}\t{{.ImportPath}}\t{{.Dir}}\t{{join .Imports \" \"}}\t{{join .GoFiles \" \"}}", "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list: %w", err)
	}
	var module string
	var pkgs []*pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return "", nil, fmt.Errorf("go list printed %q", line)
		}
		module = f[0]
		p := &pkg{path: strings.TrimPrefix(strings.TrimPrefix(f[1], module), "/"), dir: f[2], imports: strings.Fields(f[3]), build: strings.Fields(f[4])}
		if p.path == "" {
			p.path = "."
		}
		entries, err := os.ReadDir(p.dir)
		if err != nil {
			return "", nil, err
		}
		for _, e := range entries {
			n := e.Name()
			if e.Type().IsRegular() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				p.files = append(p.files, n)
			}
		}
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b *pkg) int { return strings.Compare(a.path, b.path) })
	return module, pkgs, nil
}

// longFuncs lists the functions and methods of f above the limit, their
// lines counted from the line of `func` to the line of the closing brace.
func longFuncs(fset *token.FileSet, f *ast.File, rel string) []longFunc {
	var out []longFunc
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start := fset.Position(fd.Pos()).Line
		n := fset.Position(fd.End()).Line - start + 1
		if n > maxFuncLines {
			out = append(out, longFunc{name: funcName(fd), file: rel, line: start, lines: n})
		}
	}
	return out
}

// funcName names a function as gocognit does: run, (*agentConn).run.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return "(" + recvType(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}

func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(t.X)
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// wideStructs lists the struct types of f above the limit; a field is a
// name (a, b int are two) or an embedded type.
func wideStructs(fset *token.FileSet, f *ast.File, pkgPath, rel string) []wideStruct {
	var out []wideStruct
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return true
		}
		if k := countFields(st); k > maxStructFields {
			out = append(out, wideStruct{name: pkgPath + "." + ts.Name.Name, file: fmt.Sprintf("%s:%d", rel, fset.Position(ts.Pos()).Line), fields: k})
		}
		return true
	})
	return out
}

func countFields(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		n += max(1, len(f.Names))
	}
	return n
}
