package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"hash/fnv"
	"slices"
)

// A mutant is one small change to one file: the bytes [Start, End) of the
// original replaced by New.
type mutant struct {
	File     string // the file's path relative to the module's root
	Line     int
	Col      int
	Operator string // the operator and its change, e.g. "boundary < -> <="
	Start    int
	End      int
	New      string
}

func (m mutant) String() string {
	return fmt.Sprintf("%s:%d:%d %s", m.File, m.Line, m.Col, m.Operator)
}

// hash is FNV-1a (32 bit) of "file:line:col:operator": the mutant's
// place in the split and the sample, fixed whatever else changes.
func (m mutant) hash() uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s:%d:%d:%s", m.File, m.Line, m.Col, m.Operator)
	return h.Sum32()
}

// Held reports whether the mutant belongs to the held-out half: its hash
// is odd. The even ones are the development half.
func (m mutant) Held() bool { return m.hash()%2 == 1 }

// Sampled reports whether the mutant is in a sample of one in n of its
// half: the hash's other bits, divided by n, leave no remainder.
func (m mutant) Sampled(n int) bool { return n <= 1 || (m.hash()/2)%uint32(n) == 0 }

// apply returns src with the mutant's change made.
func (m mutant) apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.New))
	out = append(out, src[:m.Start]...)
	out = append(out, m.New...)
	return append(out, src[m.End:]...)
}

// swaps are the binary operators the classic mutants exchange: the
// conditional boundaries, negation and the logical operators. + and - are
// exchanged only where both sides are numeric (see mutants).
var swaps = map[token.Token]struct {
	to   token.Token
	kind string
}{
	token.LSS:  {token.LEQ, "boundary"},
	token.LEQ:  {token.LSS, "boundary"},
	token.GTR:  {token.GEQ, "boundary"},
	token.GEQ:  {token.GTR, "boundary"},
	token.EQL:  {token.NEQ, "negation"},
	token.NEQ:  {token.EQL, "negation"},
	token.LAND: {token.LOR, "logical"},
	token.LOR:  {token.LAND, "logical"},
	token.ADD:  {token.SUB, "arithmetic"},
	token.SUB:  {token.ADD, "arithmetic"},
}

// mutants lists the classic mutants inside the bodies of the functions of
// file named in funcs (a method by its name alone), in source order. rel
// names the file in the mutants; info, the file's type-checked facts,
// tells numeric + and - from string concatenation (nil: none is numeric).
func mutants(fset *token.FileSet, file *ast.File, rel string, info *types.Info, funcs []string) []mutant {
	var list []mutant
	add := func(pos token.Pos, start, end token.Pos, op, repl string) {
		p := fset.Position(pos)
		list = append(list, mutant{
			File: rel, Line: p.Line, Col: p.Column, Operator: op,
			Start: fset.Position(start).Offset, End: fset.Position(end).Offset, New: repl,
		})
	}
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !slices.Contains(funcs, fn.Name.Name) {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				s, ok := swaps[n.Op]
				if !ok || (s.kind == "arithmetic" && !numeric(info, n)) {
					break
				}
				end := n.OpPos + token.Pos(len(n.Op.String()))
				add(n.OpPos, n.OpPos, end, fmt.Sprintf("%s %s -> %s", s.kind, n.Op, s.to), s.to.String())
			case *ast.UnaryExpr:
				if n.Op == token.NOT {
					add(n.OpPos, n.OpPos, n.OpPos+1, "not !x -> x", "")
				}
			case *ast.ReturnStmt:
				for _, r := range n.Results {
					if id, ok := r.(*ast.Ident); ok && (id.Name == "true" || id.Name == "false") {
						to := map[string]string{"true": "false", "false": "true"}[id.Name]
						add(id.Pos(), id.Pos(), id.End(), fmt.Sprintf("return %s -> %s", id.Name, to), to)
					}
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING && n.Value != `""` && n.Value != "``" {
					add(n.Pos(), n.Pos(), n.End(), "string -> \"\"", `""`)
				}
			case *ast.BlockStmt:
				removals(n.List, add)
			case *ast.CaseClause:
				removals(n.Body, add)
			case *ast.CommClause:
				removals(n.Body, add)
			}
			return true
		})
	}
	slices.SortStableFunc(list, func(a, b mutant) int { return a.Start - b.Start })
	return list
}

// removals adds, through add, the removal of each statement of list that
// is a call or an assignment (not a declaration with :=, whose removal
// never compiles).
func removals(list []ast.Stmt, add func(pos, start, end token.Pos, op, repl string)) {
	for _, s := range list {
		switch s := s.(type) {
		case *ast.ExprStmt:
			if _, ok := s.X.(*ast.CallExpr); ok {
				add(s.Pos(), s.Pos(), s.End(), "remove call", "")
			}
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE {
				add(s.Pos(), s.Pos(), s.End(), "remove assignment", "")
			}
		}
	}
}

// numeric reports whether both sides of e are numbers, as info typed them.
func numeric(info *types.Info, e *ast.BinaryExpr) bool {
	if info == nil {
		return false
	}
	for _, x := range []ast.Expr{e.X, e.Y} {
		t := info.TypeOf(x)
		if t == nil {
			return false
		}
		b, ok := t.Underlying().(*types.Basic)
		if !ok || b.Info()&types.IsNumeric == 0 {
			return false
		}
	}
	return true
}
