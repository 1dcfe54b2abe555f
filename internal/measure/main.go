// Command measure prints the measures of the house against its limits,
// as the Markdown footer of docs/architecture.md: each package's size,
// the functions above 80 lines, the structs of session and setup above 12
// fields, and which fields of session.Options each entry point sets, with
// the linters' figures that scripts/measures.sh hands it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
}

// The house's limits.
const (
	maxPackageLines = 5000
	maxPackageFiles = 30
	maxFuncLines    = 80
	maxStructFields = 12
)

// config is what scripts/measures.sh passes.
type config struct {
	root     string // the module's root
	tools    string // the folder of the linters' outputs
	date     string
	commit   string
	write    bool // replace the footer of docs/architecture.md, else print it
	quick    bool // keep the linters' figures of the footer's last run
	versions toolVersions
}

type toolVersions struct {
	gocognit, staticcheck, deadcode string
}

func run(args []string, stdout io.Writer) error {
	var c config
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	fs.StringVar(&c.root, "root", ".", "the module's root")
	fs.StringVar(&c.tools, "tools", "", "the folder with the linters' outputs (gocognit.txt, staticcheck.txt, staticcheck.rc, deadcode.txt, deadcode.rc, duplicates.txt)")
	fs.StringVar(&c.date, "date", "", "the date of the run")
	fs.StringVar(&c.commit, "commit", "", "the commit measured")
	fs.BoolVar(&c.write, "write", false, "replace the footer of docs/architecture.md")
	fs.BoolVar(&c.quick, "quick", false, "keep the linters' figures of the footer's last run")
	fs.StringVar(&c.versions.gocognit, "gocognit", "", "gocognit's version")
	fs.StringVar(&c.versions.staticcheck, "staticcheck", "", "staticcheck's version")
	fs.StringVar(&c.versions.deadcode, "deadcode", "", "deadcode's version")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.tools == "" {
		return fmt.Errorf("-tools is required: the folder where scripts/measures.sh left the linters' outputs")
	}
	m, err := measure(c.root)
	if err != nil {
		return err
	}
	doc := filepath.Join(c.root, "docs", "architecture.md")
	old, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	linters, err := c.linters(string(old))
	if err != nil {
		return err
	}
	gocog, err := readGocognit(filepath.Join(c.tools, "gocognit.txt"))
	if err != nil {
		return err
	}
	footer := render(c, m, gocog, linters)
	if !c.write {
		_, err := io.WriteString(stdout, footer)
		return err
	}
	updated := replaceFooter(string(old), footer)
	return os.WriteFile(doc, []byte(updated), 0o644)
}
