package testclass

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
)

// commands are how a test file's tests run: one command, or why they
// cannot run (unrunnable), and a note on what they run when that is more
// than the file's tests. headDir is the head's checkout, read only through
// lang.Detect; src is the head's text of a Go test file.
//
// A Go file's test functions run in one go test of their package, its
// -run pattern naming exactly them (^(TestA|TestB)$: a pattern of test
// names is the one argument with such characters the sandbox runs).
func commands(f testFile, src, headDir string) (cmds [][]string, note, unrunnable string) {
	dir := path.Dir(f.path)
	switch f.ecosystem {
	case Go:
		pkg := "./" + dir
		if dir == "." {
			pkg = "."
		}
		names := goTests(src)
		if len(names) == 0 {
			return [][]string{{"go", "test", pkg}}, "it declares no test function: the package's tests ran", ""
		}
		pattern := "^" + names[0] + "$"
		if len(names) > 1 {
			pattern = "^(" + strings.Join(names, "|") + ")$"
		}
		return [][]string{{"go", "test", pkg, "-run", pattern}}, "", ""
	case Python:
		return [][]string{{"python3", "-m", "pytest", "-q", f.path}}, "", ""
	case Node:
		argv, unrunnable := nodeCommand(f.path, headDir)
		if unrunnable != "" {
			return nil, "", unrunnable
		}
		return [][]string{argv}, "", ""
	case Rust:
		if name, ok := strings.CutPrefix(f.path, "tests/"); ok {
			return [][]string{{"cargo", "test", "--test", strings.TrimSuffix(name, ".rs")}}, "", ""
		}
		return [][]string{{"cargo", "test"}}, "the crate's tests ran, all of them: a module's tests are not run alone yet", ""
	}
	return nil, "", fmt.Sprintf("no runner for %s", f.path)
}

// nodeRunnerArgs is how each runner a script may name runs one file.
var nodeRunnerArgs = map[string][]string{
	"vitest": {"npx", "vitest", "run"},
	"jest":   {"npx", "jest"},
	"mocha":  {"npx", "mocha"},
	"ava":    {"npx", "ava"},
	"tap":    {"npx", "tap"},
}

// nodeCommand runs a Node.js test file with the runner package.json's
// scripts name (lang.Project.Runners), or node --test when they name none.
func nodeCommand(p, headDir string) (argv []string, unrunnable string) {
	project, err := lang.Detect(headDir, deps.PythonFetches)
	if err != nil {
		return nil, fmt.Sprintf("the head's package.json could not be read: %v", err)
	}
	if runners := project.Runners(); len(runners) > 0 {
		return append(slices.Clone(nodeRunnerArgs[runners[0]]), p), ""
	}
	switch path.Ext(p) {
	case ".ts", ".mts", ".cts":
		return nil, "a TypeScript test needs a runner (vitest, jest, mocha, ava, tap) that a script of package.json names: none does"
	}
	return []string{"node", "--test", p}, ""
}

// headSource is the head's text of a Go test file (its size was bounded
// by find), "" for another ecosystem's, which is never read here.
func headSource(ctx context.Context, o Options, f testFile) (string, error) {
	if f.ecosystem != Go {
		return "", nil
	}
	text, err := o.Git(ctx, o.Clone, "cat-file", "blob", f.blob)
	if err != nil {
		return "", fmt.Errorf("read %s at the head: %w", f.path, err)
	}
	return text, nil
}
