package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGuardsPaths is the pure rule of which paths run with the workflow
// token, as a path may be spelt: any letter case (a case-insensitive file
// system, or a checkout on one, makes .GitHub/Workflows the same
// directory), doubled or dotted separators, a detour through .., and a
// backslash. A nil or zero Guard guards the two directories and .github;
// one read from the workflows adds the local action files they use.
func TestGuardsPaths(t *testing.T) {
	t.Parallel()
	read := &Guard{files: map[string]bool{"ci/setup/action.yml": true}}
	tests := []struct {
		path string
		want bool // for every guard
		read bool // for the guard that knows ci/setup/action.yml
	}{
		{".github/workflows/x.yml", true, true},
		{".github/workflows", true, true},
		{".github/workflows/", true, true},
		{".GitHub/Workflows/x.yml", true, true},
		{".github/WORKFLOWS/x.YAML", true, true},
		{".GITHUB/workflows/sub/deep.yml", true, true},
		{"./.github//workflows/x.yml", true, true},
		{".github/./workflows/x.yml", true, true},
		{"a/../.github/workflows/x.yml", true, true},
		{"a/b/../../.github/workflows/x.yml", true, true},
		{".github/x/../workflows/x.yml", true, true},
		{`.github\workflows\x.yml`, true, true},
		{".github/actions/build/action.yml", true, true},
		{".GITHUB/Actions/build/run.sh", true, true},
		{"./.github//actions/x", true, true},
		{".github", true, true},
		{".GITHUB", true, true},
		{"./.github/", true, true},
		// Not a workflow, nor an action.
		{".github/dependabot.yml", false, false},
		{".github/CODEOWNERS", false, false},
		{".github/workflowsx/y.yml", false, false},
		{".github/workflow/y.yml", false, false},
		{".githubx/workflows/y.yml", false, false},
		{"docs/.github/workflows/x.yml", false, false},
		{"workflows/x.yml", false, false},
		{".github/workflows/../dependabot.yml", false, false},
		{"README.md", false, false},
		// A local action file a workflow uses, in any letter case, and the
		// directories holding it (replacing one with a link changes it).
		{"ci/setup/action.yml", false, true},
		{"CI/Setup/Action.YML", false, true},
		{"./ci//setup/action.yml", false, true},
		{"ci/setup", false, true},
		{"ci", false, true},
		{"ci/setup/run.sh", false, false},
		{"ci/other/action.yml", false, false},
		{"cix", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			var none *Guard
			assert.Equal(t, tt.want, none.Guards(tt.path), "nil guard")
			assert.Equal(t, tt.want, (&Guard{}).Guards(tt.path), "zero guard")
			assert.Equal(t, tt.read, read.Guards(tt.path), "guard of ci/setup/action.yml")
		})
	}
}

// TestGuardsEveryActionFile is the guard of a workflow that could not be
// read whole: every action file, in any letter case, and nothing else.
func TestGuardsEveryActionFile(t *testing.T) {
	t.Parallel()
	every := &Guard{every: true}
	for path, want := range map[string]bool{
		"x/action.yml": true, "x/ACTION.YAML": true, "action.yml": true, "a/b/c/Action.Yml": true,
		"x/action.yml.bak": false, "x/myaction.yml": false, "x/run.sh": false,
	} {
		assert.Equal(t, want, every.Guards(path), path)
	}
}
