// Package workflowlint holds the test that lints the repository's workflows
// and action.yml.
package workflowlint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkflowsLint runs actionlint over every workflow: any finding fails.
func TestWorkflowsLint(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out strings.Builder
	linter, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: "", Pyflakes: ""})
	require.NoError(t, err)
	errs, err := linter.LintFiles(files, nil)
	require.NoError(t, err)
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}

// TestWorkflowPermissions checks that each core workflow asks for exactly
// contents, pull-requests and issues: write, and nothing else.
func TestWorkflowPermissions(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"core-fix.yml", "core-agent-resolver.yml", "core-forge-run.yml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", name))
		require.NoError(t, err, name)
		s := string(b)
		assert.Regexp(t, `(?m)^permissions:\n  contents: write\n  pull-requests: write\n  issues: write\n[a-z]`, s, name)
		assert.Equal(t, 1, strings.Count(s, "permissions:"), "%s: one permissions block, at the top", name)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "core-forge-run.yml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "if: vars.CORE_FORGE_ENABLED == 'true'")
}
