// Package archlint holds the tests that docs/architecture.md matches the
// module's import graph, and that its measures footer names the module's
// packages.
package archlint

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/coreagent/core/"

// TestArchitectureMatchesImports: the package table of the architecture
// page names every package of the module, each with exactly the packages
// of the module it imports, as go list reports them.
func TestArchitectureMatchesImports(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	doc := readTable(t, filepath.Join(root, "docs", "architecture.md"))
	actual := goList(t, root)
	for pkg, imports := range actual {
		documented, ok := doc[pkg]
		if !assert.True(t, ok, "docs/architecture.md does not describe the package `%s`", pkg) {
			continue
		}
		assert.Equal(t, imports, documented, "the imports of `%s` in docs/architecture.md", pkg)
	}
	for pkg := range doc {
		_, ok := actual[pkg]
		assert.True(t, ok, "docs/architecture.md describes `%s`, which is no package", pkg)
	}
}

var cell = regexp.MustCompile("`([a-z0-9/._-]+)`")

// readTable reads the package table: | `pkg` | job | `imp`, `imp` |.
func readTable(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	inTable := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| package | its one job | imports |") {
			inTable = true
			continue
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if len(out) > 0 {
				break
			}
			continue
		}
		cols := strings.Split(strings.Trim(line, "|"), "|")
		require.Len(t, cols, 3, "a row of the package table: %s", line)
		m := cell.FindStringSubmatch(cols[0])
		require.NotNil(t, m, "a row without a package: %s", line)
		imports := []string{}
		for _, im := range cell.FindAllStringSubmatch(cols[2], -1) {
			imports = append(imports, im[1])
		}
		slices.Sort(imports)
		out[m[1]] = imports
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, "no package table in %s", path)
	return out
}

// goList returns each package of the module with the module packages its
// non-test files import.
func goList(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	b, err := cmd.Output()
	require.NoError(t, err)
	out := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		imports := []string{}
		for _, im := range fields[1:] {
			if strings.HasPrefix(im, module) {
				imports = append(imports, strings.TrimPrefix(im, module))
			}
		}
		slices.Sort(imports)
		out[pkg] = imports
	}
	return out
}
