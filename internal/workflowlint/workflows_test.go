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
// contents, pull-requests, issues and checks: write, and nothing else.
func TestWorkflowPermissions(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"core-fix.yml", "core-agent-resolver.yml", "core-forge-run.yml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", name))
		require.NoError(t, err, name)
		s := string(b)
		assert.Regexp(t, `(?m)^permissions:\n  contents: write\n  pull-requests: write\n  issues: write\n  checks: write\n[a-z]`, s, name)
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

// TestWorkflowFilters checks the jobs' if: only core's label by name and
// comments holding the trigger phrase's fix (or, on a pull request,
// review) command by someone who can write start the container, never a
// message to a live run; the forger's schedule waits for the arm variable but a manual
// run always starts (so forge can say "disarmed" and fix/resolve work).
func TestWorkflowFilters(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"core-fix.yml", "core-agent-resolver.yml"} {
		s := readWorkflow(t, name)
		assert.Contains(t, s, "github.event.label.name == "+labelExpr, name)
		assert.Contains(t, s, "contains(github.event.comment.body, format('{0} fix', "+phraseExpr+"))", name)
		assert.NotContains(t, s, "contains(github.event.comment.body, "+phraseExpr+")", "%s: a message to a live run starts no job", name)
		assert.Contains(t, s, `contains(fromJSON('["OWNER","MEMBER","COLLABORATOR"]'), github.event.comment.author_association)`, name)
		assert.Contains(t, s, "github.event_name == 'issue_comment' &&", name)
	}
	assert.Contains(t, readWorkflow(t, "core-agent-resolver.yml"), "contains(github.event.comment.body, format('{0} review', "+phraseExpr+"))")
	forge := readWorkflow(t, "core-forge-run.yml")
	assert.Contains(t, forge, "if: github.event_name == 'workflow_dispatch' || vars.CORE_FORGE_ENABLED == 'true'")
	assert.Contains(t, forge, "CORE_FORGE_ENABLED: ${{ vars.CORE_FORGE_ENABLED }}")
}

// The expressions the examples read core's trigger phrase and label from:
// repository variables, with the Action's defaults.
const (
	phraseExpr = "vars.CORE_TRIGGER_PHRASE || '/core'"
	labelExpr  = "(vars.CORE_LABEL || 'core:fix')"
)

// TestWorkflowTriggersOnePlace checks that a repository changes its trigger
// phrase or label in one place: the job's if: and the Action's
// trigger_phrase and label inputs read the same repository variables, and
// nothing hard-codes the default command or label, so a phrase the if: lets
// through is the one core looks for.
func TestWorkflowTriggersOnePlace(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"core-fix.yml", "core-agent-resolver.yml"} {
		wf, errs := actionlint.Parse([]byte(readWorkflow(t, name)))
		require.Empty(t, errs, name)
		require.Len(t, wf.Jobs, 1, name)
		for _, job := range wf.Jobs {
			require.NotNil(t, job.If, name)
			cond := job.If.Value
			assert.NotContains(t, cond, "'/core fix'", "%s: the if: names the phrase only through the variable", name)
			assert.NotContains(t, cond, "== 'core:fix'", "%s: the if: names the label only through the variable", name)
			var core *actionlint.ExecAction
			for _, st := range job.Steps {
				if a, ok := st.Exec.(*actionlint.ExecAction); ok && a.Uses != nil && a.Uses.Value == "./" {
					core = a
				}
			}
			require.NotNil(t, core, "%s: a step uses core (./)", name)
			for input, want := range map[string]string{"trigger_phrase": phraseExpr, "label": labelExpr} {
				in := core.Inputs[input]
				require.NotNil(t, in, "%s: core's step sets %s", name, input)
				assert.Equal(t, "${{ "+strings.Trim(want, "()")+" }}", in.Value.Value, "%s: %s reads what the if: reads", name, input)
			}
		}
	}
}

func readWorkflow(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", name))
	require.NoError(t, err, name)
	return string(b)
}
