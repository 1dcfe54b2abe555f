package main

import (
	"context"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// row is one target's figures.
type row struct {
	target            target
	killed, discarded int
	survivors         []mutant
	compiled          int // mutants that compiled: killed + survivors
}

// measure makes the target's mutants of the half asked for, drops those
// that do not type-check, and runs the package's tests on each of the
// rest, one at a time.
func (c config) measure(ctx context.Context, t target, tmp string, stdout, stderr io.Writer) (row, error) {
	r := row{target: t}
	p, err := loadPkg(ctx, c.root, t.dir())
	if err != nil {
		return r, err
	}
	path := filepath.Join(p.dir, filepath.Base(t.file))
	src, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	fset := token.NewFileSet()
	file, info, err := p.check(fset, path, nil)
	if err != nil {
		return r, fmt.Errorf("the unmutated package does not type-check: %w", err)
	}
	var list []mutant
	for _, m := range mutants(fset, file, t.file, info, t.funcs) {
		if (c.half == "all" || m.Held() == (c.half == "held")) && m.Sampled(c.sample) {
			list = append(list, m)
		}
	}
	if c.list {
		for _, m := range list {
			fmt.Fprintln(stdout, m)
		}
		return r, nil
	}
	if o, out, err := runTests(ctx, c.root, t, path, nil, c.timeout, tmp); err != nil || o != survived {
		return r, fmt.Errorf("the unmutated package's tests do not pass (%v): %s", err, out)
	}
	for i, m := range list {
		ms := m.apply(src)
		if _, _, err := p.check(token.NewFileSet(), path, ms); err != nil {
			r.discarded++
			continue
		}
		o, _, err := runTests(ctx, c.root, t, path, ms, c.timeout, tmp)
		if err != nil {
			return r, err
		}
		switch o {
		case killed:
			r.killed++
		case survived:
			r.survivors = append(r.survivors, m)
		case discarded:
			r.discarded++
			continue
		}
		r.compiled++
		fmt.Fprintf(stderr, "mutate: %s %d/%d %s: %s\n", t.file, i+1, len(list), m, map[outcome]string{killed: "killed", survived: "SURVIVED"}[o])
	}
	return r, nil
}

// report prints the figures per target and in total, and the survivors.
func report(w io.Writer, half string, rows []row) {
	fmt.Fprintf(w, "Mutation sample, %s half (a mutant that does not compile is not counted):\n\n", half)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tmutants\tkilled\tsurvived\tscore\t")
	var all row
	for _, r := range rows {
		name := r.target.file + " (" + strings.Join(r.target.funcs, ", ") + ")"
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t\n", name, r.compiled, r.killed, len(r.survivors), score(r))
		all.compiled += r.compiled
		all.killed += r.killed
		all.survivors = append(all.survivors, r.survivors...)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%s\t\n", all.compiled, all.killed, len(all.survivors), score(all))
	tw.Flush()
	if len(all.survivors) > 0 {
		fmt.Fprintln(w, "\nsurvivors:")
		for _, m := range all.survivors {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
}

func score(r row) string {
	if r.compiled == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(r.killed)/float64(r.compiled))
}
