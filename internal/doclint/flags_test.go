package doclint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
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

// commandLine is a line of a code block that runs core: `core …`,
// `$ core …` or `go run ./cmd/core …`.
var commandLine = regexp.MustCompile(`^\s*(?:\$ )?(?:core|go run \./cmd/core) (.*)$`)

// longFlag is a --flag in a command line, not inside a word.
var longFlag = regexp.MustCompile(`(?:^|[\s(\[|])--([a-z][a-z0-9-]*)`)

// declaredFlag is a flag cmd/core declares with the flag package or
// pflag: fl.StringVar(&x, "name", …) or cmd.Flags().Bool("name", …).
var declaredFlag = regexp.MustCompile(`\.(?:\w*Var|String|Bool|Int|Int64|Duration|Float64|StringArray|StringSlice)P?\((?:[^,()]+, )?"([a-z][a-z0-9-]*)"`)

// TestCommandFlagsExist: every --flag in a command of the manual's code
// blocks (the quick start's, the examples') is one core takes: a setting's
// flag, one cmd/core declares, or cobra's own (--help, --version). A flag
// renamed or dropped leaves no example behind that no longer runs.
func TestCommandFlagsExist(t *testing.T) {
	known, err := knownFlags()
	if err != nil {
		t.Fatal(err)
	}
	paths, err := manual(root)
	if err != nil {
		t.Fatal(err)
	}
	commands := 0
	for _, rel := range paths {
		p, err := parse(root, rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range p.code {
			for _, line := range block {
				m := commandLine.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				commands++
				for _, f := range longFlag.FindAllStringSubmatch(m[1], -1) {
					if !known[f[1]] {
						t.Errorf("%s: --%s is no flag of core's: %q", rel, f[1], strings.TrimSpace(line))
					}
				}
			}
		}
	}
	if commands == 0 {
		t.Fatal("no code block of the manual runs core")
	}
}

// knownFlags are the flags core takes: the settings' and those cmd/core's
// sources declare, read as text (no engine compiled), with cobra's own.
func knownFlags() (map[string]bool, error) {
	known := map[string]bool{"help": true, "version": true}
	settings, err := settingFlags(filepath.Join(root, "setup", "settings.go"))
	if err != nil {
		return nil, err
	}
	for _, f := range settings {
		known[f] = true
	}
	sources, err := filepath.Glob(filepath.Join(root, "cmd", "core", "*.go"))
	if err != nil {
		return nil, err
	}
	for _, src := range sources {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		for _, m := range declaredFlag.FindAllStringSubmatch(string(b), -1) {
			known[m[1]] = true
		}
	}
	return known, nil
}
