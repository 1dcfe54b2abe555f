package main

import (
	"bytes"
	"context"
	"encoding/json"
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
)

// pkg is a target's package as go list and the type checker see it.
type pkg struct {
	dir     string   // absolute
	path    string   // import path
	files   []string // absolute paths of the non-test Go files
	exports map[string]string
	imports map[string]string // ImportMap: path in source -> package path
}

// listed is the part of go list -json this program reads.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	ImportMap  map[string]string
}

// loadPkg lists dir's package and the export data of everything it
// imports, so that its files (and mutants of them) type-check without
// running the compiler on them.
func loadPkg(ctx context.Context, root, dir string) (*pkg, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-export", "-deps", "-json", "./"+dir)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w: %s", dir, err, stderr.String())
	}
	p := &pkg{exports: map[string]string{}}
	want, err := filepath.Abs(filepath.Join(root, dir))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var l listed
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("go list %s: %w", dir, err)
		}
		p.exports[l.ImportPath] = l.Export
		if l.Dir == want {
			p.dir, p.path, p.imports = l.Dir, l.ImportPath, l.ImportMap
			for _, f := range l.GoFiles {
				p.files = append(p.files, filepath.Join(l.Dir, f))
			}
		}
	}
	if p.path == "" {
		return nil, fmt.Errorf("go list %s: the package is not in its output", dir)
	}
	return p, nil
}

// check parses and type-checks the package's files, with src standing in
// for the file at path when it is not nil. It returns the file at path,
// parsed, and the facts of the check.
func (p *pkg) check(fset *token.FileSet, path string, src []byte) (*ast.File, *types.Info, error) {
	var files []*ast.File
	var target *ast.File
	for _, f := range p.files {
		var s any
		if f == path && src != nil {
			s = src
		}
		af, err := parser.ParseFile(fset, f, s, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		if f == path {
			target = af
		}
		files = append(files, af)
	}
	if target == nil {
		return nil, nil, fmt.Errorf("%s is not a file of %s", path, p.path)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			if m, ok := p.imports[path]; ok {
				path = m
			}
			e, ok := p.exports[path]
			if !ok || e == "" {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(e)
		}),
	}
	if _, err := conf.Check(p.path, fset, files, info); err != nil {
		return nil, nil, err
	}
	return target, info, nil
}
