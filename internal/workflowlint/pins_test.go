package workflowlint

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usesLine is a step's uses: in a workflow or in the manual's examples.
var usesLine = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*(\S+)(.*)$`)

// pinned is a remote action pinned by commit, with its tag in a trailing
// comment: owner/name@<40 hex> # v1.2.3.
var pinned = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)

var tagComment = regexp.MustCompile(`^\s+# v\d+(\.\d+)*$`)

// TestActionsPinned checks that every remote action the workflows and the
// manual's yaml examples (the README's and docs/*.md's) use is pinned by full
// commit SHA (a tag can be moved to other code; a commit cannot), with the tag
// in a trailing comment.
// core's own action (./, coreagent/core@<release>) is the reader's choice.
func TestActionsPinned(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	require.NoError(t, err)
	sources := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sources[filepath.Base(f)] = string(b)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	examples := 0
	for _, page := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		md, err := os.ReadFile(page)
		require.NoError(t, err)
		rel, err := filepath.Rel(root, page)
		require.NoError(t, err)
		for i, block := range yamlBlocks(string(md)) {
			sources[fmt.Sprintf("%s yaml block %d", rel, i+1)] = block
			examples++
		}
	}
	assert.Positive(t, examples, "the manual has yaml examples")
	remote := 0
	for name, src := range sources {
		for _, m := range usesLine.FindAllStringSubmatch(src, -1) {
			uses, rest := m[1], m[2]
			if strings.HasPrefix(uses, "./") || strings.HasPrefix(uses, "docker://") || strings.HasPrefix(uses, "coreagent/core@") {
				continue
			}
			remote++
			assert.Regexp(t, pinned, uses, "%s: %s is not pinned by full commit SHA", name, uses)
			assert.Regexp(t, tagComment, rest, "%s: %s has no trailing # vX.Y.Z comment naming its tag", name, uses)
		}
	}
	assert.Positive(t, remote, "the examples use remote actions")
}

// TestCheckoutKeepsNoCredentials checks that core's workflows, where core
// clones the repository for itself, check out without leaving the token in
// .git/config for later steps.
func TestCheckoutKeepsNoCredentials(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"core-fix.yml", "core-agent-resolver.yml", "core-forge-run.yml", "core.yml"} {
		s := readWorkflow(t, name)
		assert.Regexp(t, `uses: actions/checkout@[0-9a-f]{40} # v[\d.]+\n\s+with:\n\s+persist-credentials: false\n`, s, name)
	}
}

// yamlBlocks returns a page's ```yaml code blocks.
func yamlBlocks(md string) []string {
	var out []string
	for _, part := range strings.Split(md, "```yaml\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		out = append(out, block)
	}
	return out
}
