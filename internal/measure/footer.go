package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The footer's markers: scripts/measures.sh --write replaces what lies
// between begin and end; --quick keeps what lies between the linters'.
const (
	beginMarker        = "<!-- measures:begin -->"
	endMarker          = "<!-- measures:end -->"
	lintersBeginMarker = "<!-- measures:linters:begin -->"
	lintersEndMarker   = "<!-- measures:linters:end -->"
	footerHeading      = "## Measures"
	// packagesHeader opens the footer's table of packages, which
	// internal/archlint compares with the module's packages.
	packagesHeader = "| package | non-test lines | non-test files |"
)

// complexity is one line of gocognit's output.
type complexity struct {
	score          int
	pkg, fn, where string
}

// readGocognit reads gocognit's lines: complexity, package, function,
// position, separated by tabs.
func readGocognit(path string) ([]complexity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gocognit's output: %w", err)
	}
	defer f.Close()
	var out []complexity
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			continue // gocognit's notes
		}
		n, err := strconv.Atoi(cols[0])
		if err != nil {
			return nil, fmt.Errorf("gocognit printed %q", sc.Text())
		}
		out = append(out, complexity{score: n, pkg: cols[1], fn: cols[2], where: cols[3]})
	}
	return out, sc.Err()
}

// linters is the footer's section on staticcheck, deadcode and
// duplicates, markers included: from the outputs in c.tools, or with
// c.quick the section of the footer's last run.
func (c config) linters(doc string) (string, error) {
	if c.quick {
		if s, ok := between(doc, lintersBeginMarker, lintersEndMarker); ok {
			return lintersBeginMarker + s + lintersEndMarker, nil
		}
		return lintersBeginMarker + "\nThe linters have not run yet: run `scripts/measures.sh --write` without `--quick`.\n" + lintersEndMarker, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nThe linters as of %s, commit %s:\n\n", lintersBeginMarker, c.date, c.commit)
	sc, err := c.tool("staticcheck")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "- **staticcheck** %s (`make staticcheck`, the tests included): %s\n", c.versions.staticcheck, sc.verdict("clean"))
	dc, err := c.tool("deadcode")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "- **deadcode** %s (`golang.org/x/tools/cmd/deadcode -test ./...`, the version of `golang.org/x/tools` in go.sum; what no main program nor test reaches): %s\n", c.versions.deadcode, dc.verdict("lists nothing"))
	dup, err := c.tool("duplicates")
	if errors.Is(err, fs.ErrNotExist) {
		b.WriteString("- **duplicates**: not run (not on the `PATH`; it is not part of CI)\n")
	} else if err != nil {
		return "", err
	} else {
		fmt.Fprintf(&b, "- **duplicates** (`duplicates --seconds 120`, not part of CI):\n\n%s\n", dup.quote())
	}
	b.WriteString(lintersEndMarker)
	return b.String(), nil
}

type toolOutput struct {
	lines []string
	rc    string
}

// tool reads <name>.txt and <name>.rc (its exit status, if it has one).
func (c config) tool(name string) (toolOutput, error) {
	b, err := os.ReadFile(filepath.Join(c.tools, name+".txt"))
	if err != nil {
		return toolOutput{}, err
	}
	var t toolOutput
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			t.lines = append(t.lines, l)
		}
	}
	if rc, err := os.ReadFile(filepath.Join(c.tools, name+".rc")); err == nil {
		t.rc = strings.TrimSpace(string(rc))
	}
	return t, nil
}

// maxToolLines bounds what the footer quotes of a tool.
const maxToolLines = 40

func (t toolOutput) verdict(clean string) string {
	if len(t.lines) == 0 && (t.rc == "" || t.rc == "0") {
		return clean + "."
	}
	var b strings.Builder
	if len(t.lines) == 0 {
		fmt.Fprintf(&b, "exit status %s and no output.", t.rc)
		return b.String()
	}
	fmt.Fprintf(&b, "%d lines (exit status %s):\n\n%s", len(t.lines), orZero(t.rc), t.quote())
	return b.String()
}

// quote prints the output as a code block in a list item, at most
// maxToolLines of it.
func (t toolOutput) quote() string {
	var b strings.Builder
	b.WriteString("  ```\n")
	for i, l := range t.lines {
		if i == maxToolLines {
			fmt.Fprintf(&b, "  … and %d more\n", len(t.lines)-maxToolLines)
			break
		}
		fmt.Fprintf(&b, "  %s\n", l)
	}
	b.WriteString("  ```")
	return b.String()
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// render prints the footer, markers included.
func render(c config, m *measures, gocog []complexity, linters string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nPrinted by `scripts/measures.sh --write` (`make measures`) on %s at commit %s. "+
		"The limits: no package above %d non-test lines or %d non-test files, no function above %d lines, no struct above %d fields, staticcheck and duplicates clean, deadcode listing nothing. "+
		"Lines are every line of a package's non-test `.go` files, as `wc -l` counts them; a file is one of its folder, whatever its build constraints. "+
		"**Bold** is above a limit.\n\n", beginMarker, c.date, c.commit, maxPackageLines, maxPackageFiles, maxFuncLines, maxStructFields)

	fmt.Fprintf(&b, "### Packages (limits: %d lines, %d files)\n\n%s\n|---|---:|---:|\n", maxPackageLines, maxPackageFiles, packagesHeader)
	var lines, files, over int
	for _, p := range m.pkgs {
		lines += p.lines
		files += len(p.files)
		if p.lines > maxPackageLines || len(p.files) > maxPackageFiles {
			over++
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.path, mark(p.lines, maxPackageLines), mark(len(p.files), maxPackageFiles))
	}
	fmt.Fprintf(&b, "\n%d packages, %d lines in %d files; %d above a limit.\n\n", len(m.pkgs), lines, files, over)

	fmt.Fprintf(&b, "### Functions above %d lines\n\n", maxFuncLines)
	if len(m.funcs) == 0 {
		b.WriteString("None.\n\n")
	} else {
		fmt.Fprintf(&b, "%d functions, their lines counted from `func` to the closing brace:\n\n| function | file | lines |\n|---|---|---:|\n", len(m.funcs))
		for _, f := range m.funcs {
			fmt.Fprintf(&b, "| `%s` | `%s:%d` | %d |\n", f.name, f.file, f.line, f.lines)
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, "### Cognitive complexity: the top %d functions\n\n`gocognit %s -top %d -test=false`, the functions of non-test files (without `-exact-recursion`, which takes a minute more, mutual recursion may be under-counted):\n\n| complexity | function | file |\n|---:|---|---|\n", len(gocog), c.versions.gocognit, len(gocog))
	for _, g := range gocog {
		fmt.Fprintf(&b, "| %d | `%s.%s` | `%s` |\n", g.score, g.pkg, g.fn, g.where)
	}
	b.WriteString("\n")

	fmt.Fprintf(&b, "### Structs of `session` and `setup` above %d fields\n\n", maxStructFields)
	if len(m.structs) == 0 {
		b.WriteString("None.\n\n")
	} else {
		b.WriteString("A field is a name (`a, b int` are two) or an embedded type.\n\n| struct | file | fields |\n|---|---|---:|\n")
		for _, s := range m.structs {
			fmt.Fprintf(&b, "| `%s` | `%s` | %d |\n", s.name, s.file, s.fields)
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, "### The fields of `session.Options` each entry point sets\n\nThe fields %s. An entry point sets the rest through `setup.Options`.\n\n| package | entry point | fields it sets |\n|---|---|---|\n", m.how)
	for _, s := range m.setters {
		who := entryPoints[s.pkg]
		if who == "" {
			who = "(not an entry point)"
		}
		fields := "none"
		if len(s.fields) > 0 {
			fields = fmt.Sprintf("%d: `%s`", len(s.fields), strings.Join(s.fields, "`, `"))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.pkg, who, fields)
	}
	b.WriteString("\n")

	fmt.Fprintf(&b, "### Linters\n\n%s\n%s\n", linters, endMarker)
	return b.String()
}

// mark prints n, in bold with its limit when above it.
func mark(n, limit int) string {
	if n > limit {
		return fmt.Sprintf("**%d** (> %d)", n, limit)
	}
	return strconv.Itoa(n)
}

// between returns what lies between the first begin and the end after it.
func between(s, begin, end string) (string, bool) {
	_, rest, ok := strings.Cut(s, begin)
	if !ok {
		return "", false
	}
	in, _, ok := strings.Cut(rest, end)
	return in, ok
}

// replaceFooter puts footer (markers included) in place of doc's, or
// appends it under its heading where doc has none.
func replaceFooter(doc, footer string) string {
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	if i < 0 || j < i {
		return strings.TrimRight(doc, "\n") + "\n\n" + footerHeading + "\n\n" + footer
	}
	return doc[:i] + footer + strings.TrimPrefix(doc[j+len(endMarker):], "\n")
}
