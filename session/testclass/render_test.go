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

func TestMarkdownSaysTheError(t *testing.T) {
	t.Parallel()
	md := Markdown(Classification{Error: "check out the head: git | said no"})
	assert.Equal(t, "### The pull request's tests\n\nThe harness could not classify the pull request's tests: check out the head: git \\| said no\n", md,
		"an error is said, not \"no test file\"")
	md = Markdown(Classification{Error: "context canceled", Files: []Classified{{Path: "a_test.go", Class: NotTesting}}})
	assert.Contains(t, md, "could not classify the pull request's tests: context canceled\n\nWhat it classified before that:")
	assert.Contains(t, md, "| `a_test.go` |")
}

func TestSummaryAndText(t *testing.T) {
	t.Parallel()
	c := Classification{Files: []Classified{
		{Path: "a_test.go", Commands: [][]string{{"go", "test"}}, Base: Side{Exit: 1, Seconds: 1}, Head: Side{Passed: true, Seconds: 1}, Class: TestsChange, Reason: "red then green"},
		{Path: "b\x1b[31m_test.go", Commands: [][]string{{"go", "test"}}, Base: Side{Passed: true}, Head: Side{Passed: true}, Class: NotTesting, Reason: "green\non both"},
		{Path: "c_test.go", Commands: [][]string{{"go", "test"}}, Base: Side{Passed: true}, Head: Side{Passed: true}, Class: NotTesting},
	}, LeftOut: 2}
	assert.Equal(t, "1 tests the change, 2 does not test the change, 2 left out", Summary(c))
	assert.Equal(t, "no test file", Summary(Classification{}))
	assert.Equal(t, "not classified: git failed", Summary(Classification{Error: "git failed"}))
	text := Text(c)
	assert.Contains(t, text, "TEST FILE")
	assert.Regexp(t, `(?m)^a_test.go +failed, exit 1 \(1.0s\) +passed \(1.0s\) +tests the change: red then green$`, text)
	assert.Regexp(t, `(?m)does not test the change$`, text, "no reason, no colon")
	assert.NotContains(t, text, "\x1b", "a terminal's escape in a path is not printed")
	assert.Contains(t, text, "green on both", "a reason is one line")
	assert.Contains(t, text, "2 more test files were left out")
	assert.Equal(t, "The pull request adds or changes no test file.\n", Text(Classification{}))
}
