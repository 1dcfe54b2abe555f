package main

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The struct whose fields each entry point sets, and the entry points.
const (
	optionsPkg  = "session"
	optionsType = "Options"
)

// entryPoints are keyed by a package or, where one package holds two,
// by a file of it.
var entryPoints = map[string]string{
	"cmd/core":          "the CLI",
	"cmd/core/serve.go": "`session serve`",
	"remote":            "`session serve`'s client of the console",
	"action":            "the Action",
	"bot":               "the bot",
	"setup":             "setup (the settings every entry point reads)",
}

// setter is a package (or an entry point's file) that sets fields of
// session.Options.
type setter struct {
	pkg    string
	fields []string
}

// key is where the fields file sets are counted: its entry point's file,
// else its package.
func key(p *pkg, file string) string {
	if k := p.path + "/" + file; entryPoints[k] != "" {
		return k
	}
	return p.path
}

const setterHow = "found with go/types in each package's non-test files: the keys of every composite literal of `session.Options`, " +
	"and every field of a value of that type assigned (`o.X = `, `o.X.Y = `, `o.X++`) or whose address is taken (`&o.X`)"

// optionSetters type-checks, from source, each package of the module that
// imports the package of session.Options (its imports from the export data
// go list -export leaves in the build cache) and lists the fields it sets.
func optionSetters(root, module string, pkgs []*pkg) ([]setter, string, error) {
	target := module + "/" + optionsPkg
	var users []*pkg
	for _, p := range pkgs {
		if slices.Contains(p.imports, target) {
			users = append(users, p)
		}
	}
	if len(users) == 0 {
		return nil, setterHow, nil
	}
	exports, err := exportData(root, module, users)
	if err != nil {
		return nil, "", err
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var out []setter
	for _, p := range users {
		var files []*ast.File
		keys := map[*ast.File]string{}
		for _, name := range p.build {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, "", err
			}
			files = append(files, f)
			keys[f] = key(p, name)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(module+"/"+p.path, fset, files, info); err != nil {
			return nil, "", fmt.Errorf("type-check %s: %w", p.path, err)
		}
		out = append(out, group(files, keys, info, target)...)
	}
	slices.SortFunc(out, func(a, b setter) int { return strings.Compare(a.pkg, b.pkg) })
	return out, setterHow, nil
}

// group lists the fields set under each key of a package's files: every
// entry point, and any other package that sets some.
func group(files []*ast.File, keys map[*ast.File]string, info *types.Info, target string) []setter {
	byKey := map[string][]*ast.File{}
	for _, f := range files {
		byKey[keys[f]] = append(byKey[keys[f]], f)
	}
	var out []setter
	for k, fs := range byKey {
		fields := setFields(fs, info, target)
		if len(fields) > 0 || entryPoints[k] != "" {
			out = append(out, setter{pkg: k, fields: fields})
		}
	}
	return out
}

// exportData maps each dependency of pkgs to its export data file.
func exportData(root, module string, pkgs []*pkg) (map[string]string, error) {
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}
	for _, p := range pkgs {
		args = append(args, "./"+p.path)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(line, "\t")
		m[path] = file
	}
	return m, nil
}

// setFields lists the fields of target's Options that files set.
func setFields(files []*ast.File, info *types.Info, target string) []string {
	s := fieldSets{info: info, target: target, set: map[string]bool{}}
	for _, f := range files {
		ast.Inspect(f, s.node)
	}
	fields := make([]string, 0, len(s.set))
	for k := range s.set {
		fields = append(fields, k)
	}
	slices.Sort(fields)
	return fields
}

// fieldSets collects the fields of Options that a package sets.
type fieldSets struct {
	info   *types.Info
	target string
	set    map[string]bool
}

func (s fieldSets) node(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.CompositeLit:
		s.literal(x)
	case *ast.AssignStmt:
		for _, e := range x.Lhs {
			s.written(e)
		}
	case *ast.IncDecStmt:
		s.written(x.X)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			s.written(x.X)
		}
	}
	return true
}

// literal records the keys of a composite literal of Options.
func (s fieldSets) literal(x *ast.CompositeLit) {
	if !isOptions(s.info.Types[x].Type, s.target) {
		return
	}
	for _, el := range x.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				s.set[id.Name] = true
			}
		}
	}
}

// written records each field of Options on the way from e, an expression
// written to, down to its root: o.Browser.On records Browser.
func (s fieldSets) written(e ast.Expr) {
	for e != nil {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if sel := s.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal && isOptions(sel.Recv(), s.target) {
				s.set[x.Sel.Name] = true
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			e = nil
		}
	}
}

func isOptions(t types.Type, target string) bool {
	if t == nil {
		return false
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == optionsType && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == target
}
