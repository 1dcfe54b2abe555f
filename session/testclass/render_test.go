package testclass

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMarkdown(t *testing.T) {
	t.Parallel()
	c := Classification{Files: []Classified{
		{Path: "calc_test.go", Commands: [][]string{{"go", "test", ".", "-run", "^TestA"}, {"go", "test", ".", "-run", "^TestB"}}, New: true,
			Base: Side{Exit: 1, Seconds: 2}, Head: Side{Passed: true, Seconds: 1.5}, Class: TestsChange, Reason: "it fails | on the base"},
		{Path: "a`b_test.go", Class: Refused, Reason: "a symbolic link: not followed, not run"},
	}, LeftOut: 3}
	md := Markdown(c)
	assert.Contains(t, md, "| test file | command | base | head | verdict |\n|---|---|---|---|---|\n")
	assert.Contains(t, md, "| `calc_test.go` | `go test . -run ^TestA; go test . -run ^TestB` | new: failed, exit 1 (2.0s) | passed (1.5s) | **tests the change**: it fails \\| on the base |\n",
		"pipes are escaped in every cell")
	assert.Contains(t, md, "| `a'b_test.go` | — | — | — | not run: a symbolic link: not followed, not run |\n", "a backquote cannot close the code span")
	assert.Contains(t, md, "3 more test files were left out: the harness runs at most 30.")
	for line := range strings.Lines(md) {
		if strings.HasPrefix(line, "| `") {
			assert.Equal(t, 6, strings.Count(line, "|")-strings.Count(line, `\|`), "five cells: %s", line)
		}
	}
	assert.Equal(t, "### The pull request's tests\n\nThe pull request adds or changes no test file.\n", Markdown(Classification{}))
}
