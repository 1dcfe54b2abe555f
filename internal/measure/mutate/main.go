// Command mutate measures how many small changes to the security rules
// their own packages' tests catch: for each target (a file and functions
// in it, internal/measure/mutate/targets.txt) it makes the classic
// mutants inside those functions' bodies, runs the package's tests on each
// through go test -overlay (the tree is never written), and prints per
// target the mutants, those killed and those that survived, with the
// survivors listed. The mutants are split once and for all into a
// development half and a held-out half (mutant.Held); scripts/mutation.sh
// runs it.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

// target is one line of the targets file: a file, the functions whose
// bodies are mutated, and optionally a -run or -skip pattern narrowing
// the package's tests (for a package whose whole suite is too slow to run
// per mutant).
type target struct {
	file      string // relative to the module's root, slash-separated
	funcs     []string
	run, skip string
}

func (t target) dir() string { return filepath.Dir(t.file) }

// readTargets reads the targets file: one target a line, "file func
// func ... [-run=pattern] [-skip=pattern]"; blank lines and lines starting with # are
// skipped.
func readTargets(r io.Reader) ([]target, error) {
	var list []target
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		t := target{file: f[0]}
		for _, w := range f[1:] {
			if p, ok := strings.CutPrefix(w, "-run="); ok {
				t.run = p
				continue
			}
			if p, ok := strings.CutPrefix(w, "-skip="); ok {
				t.skip = p
				continue
			}
			t.funcs = append(t.funcs, w)
		}
		if !strings.HasSuffix(t.file, ".go") || len(t.funcs) == 0 {
			return nil, fmt.Errorf("line %d: want \"file.go func ... [-run=pattern] [-skip=pattern]\", got %q", n, line)
		}
		list = append(list, t)
	}
	return list, sc.Err()
}

type config struct {
	root, targets, half string
	timeout             time.Duration
	list                bool
	sample              int
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c config
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.root, "root", ".", "the module's root")
	fs.StringVar(&c.targets, "targets", "internal/measure/mutate/targets.txt", "the targets file, relative to -root")
	fs.StringVar(&c.half, "half", "dev", "which mutants to run: dev (the development half), held (the held-out half) or all")
	fs.DurationVar(&c.timeout, "timeout", 2*time.Minute, "the bound on one mutant's tests")
	fs.BoolVar(&c.list, "list", false, "list the mutants without running them")
	fs.IntVar(&c.sample, "sample", 1, "run one mutant in this many of the half (mutant.Sampled), to bound the time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.half != "dev" && c.half != "held" && c.half != "all" {
		return fmt.Errorf("-half must be dev, held or all, got %q", c.half)
	}
	f, err := os.Open(filepath.Join(c.root, c.targets))
	if err != nil {
		return err
	}
	targets, err := readTargets(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", c.targets, err)
	}
	tmp, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var rows []row
	for _, t := range targets {
		r, err := c.measure(ctx, t, tmp, stdout, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", t.file, err)
		}
		rows = append(rows, r)
	}
	if !c.list {
		report(stdout, c.half, rows)
	}
	return nil
}
