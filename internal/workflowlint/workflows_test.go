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
}

// TestReleaseWorkflow checks that a version tag pushes the image and points
// the tag's action.yml at it by digest, and that action.yml on main still
// builds the Dockerfile (the release's sed expects that line).
func TestReleaseWorkflow(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	require.NoError(t, err)
	s := string(b)
	assert.Contains(t, s, `tags: ["v*"]`)
	assert.Regexp(t, `(?m)^permissions:\n  contents: write\n  packages: write\n[a-z]`, s)
	assert.Contains(t, s, `docker push "$image:$TAG"`)
	assert.Contains(t, s, `docker build --build-arg "GO_IMAGE=$base"`, "the release builds from the base image by digest")
	assert.Contains(t, s, `s|^  image: Dockerfile\$|  image: docker://$REF|`)
	assert.Contains(t, s, `@sha256:[0-9a-f]\{64\}`)
	action, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^  image: Dockerfile$`, string(action))
}

// TestWorkflowFilters checks the jobs' if: only the core:fix label by name
// and comments with the command by someone who can write start the
// container; the forger's schedule waits for the arm variable but a manual
// run always starts (so forge can say "disarmed" and fix/resolve work).
func TestWorkflowFilters(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", name))
		require.NoError(t, err, name)
		return string(b)
	}
	for _, name := range []string{"core-fix.yml", "core-agent-resolver.yml"} {
		s := read(name)
		assert.Contains(t, s, "github.event.label.name == 'core:fix'", name)
		assert.Contains(t, s, "contains(github.event.comment.body, '/core fix')", name)
		assert.Contains(t, s, `contains(fromJSON('["OWNER","MEMBER","COLLABORATOR"]'), github.event.comment.author_association)`, name)
		assert.Contains(t, s, "github.event_name == 'issue_comment' &&", name)
	}
	forge := read("core-forge-run.yml")
	assert.Contains(t, forge, "if: github.event_name == 'workflow_dispatch' || vars.CORE_FORGE_ENABLED == 'true'")
	assert.Contains(t, forge, "CORE_FORGE_ENABLED: ${{ vars.CORE_FORGE_ENABLED }}")
}
