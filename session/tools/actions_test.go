package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usingWorkflows is a repository whose workflow uses local actions every
// way GitHub reads `uses:`, one of them (ci/setup) using another.
func usingWorkflows() map[string]string {
	return map[string]string{
		".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n" +
			"      - uses: actions/checkout@v4\n" +
			"      - uses: ./.github/actions/setup\n" +
			"      - uses: './ci/setup'\n" +
			"      - {\"uses\": ./tools/lint/action.yaml}\n",
		".github/workflows/flow.yaml":      "on: push\njobs: {a: {runs-on: x, steps: [{uses: ./flow}]}}\n",
		".github/actions/setup/action.yml": "runs: {using: composite, steps: [{run: echo, shell: bash}]}\n",
		"ci/setup/action.yml":              "runs:\n  using: composite\n  steps:\n    - uses: ./ci/inner\n",
		"ci/inner/action.yml":              "runs: {using: node20, main: index.js}\n",
		"tools/lint/action.yaml":           "runs: {using: node20, main: index.js}\n",
		"flow/action.yml":                  "runs: {using: node20, main: index.js}\n",
		"docs/action.yml":                  "name: an example in the docs, which no workflow uses\n",
		"ci/setup/run.sh":                  "echo\n",
	}
}

// TestActionWritesAreRefused: an action a workflow runs gets the
// workflow's token, so the tools refuse to write it as they refuse a
// workflow, and say which switch allows it.
func TestActionWritesAreRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		path  string
		setup func(t *testing.T, env *Env)
	}{
		{name: "an action under .github/actions", path: ".github/actions/setup/action.yml"},
		{name: "a new file under .github/actions", path: ".github/actions/new/script.sh"},
		{name: "a local action a workflow uses", path: "ci/setup/action.yml"},
		{name: "its other name, not there yet", path: "ci/setup/action.yaml"},
		{name: "an action used by file name", path: "tools/lint/action.yaml"},
		{name: "an action used in flow style", path: "flow/action.yml"},
		{name: "an action a local action uses", path: "ci/inner/action.yml"},
		{name: "another case", path: "CI/Setup/Action.yml"},
		{name: "through a symlink", path: "link.yml", setup: func(t *testing.T, env *Env) {
			require.NoError(t, os.Symlink("ci/setup/action.yml", filepath.Join(env.Workspace.Root(), "link.yml")))
		}},
		{name: ".github/actions made a link", path: "elsewhere/x/action.yml", setup: func(t *testing.T, env *Env) {
			root := env.Workspace.Root()
			require.NoError(t, os.RemoveAll(filepath.Join(root, ".github", "actions")))
			require.NoError(t, os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755))
			require.NoError(t, os.Symlink("../elsewhere", filepath.Join(root, ".github", "actions")))
		}},
		{name: "used when the session started, no longer", path: "old/action.yml", setup: func(t *testing.T, env *Env) {
			env.Guard = &Guard{files: map[string]bool{"old/action.yml": true}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, usingWorkflows())
			if tt.setup != nil {
				tt.setup(t, env)
			}
			root := env.Workspace.Root()
			before := snapshot(t, root)
			r := runTool(t, env, "write_file", Args{"path": tt.path, "content": "runs: {using: composite, steps: [{run: 'echo ${{ github.token }}', shell: bash}]}\n"})
			assert.Contains(t, r.Output, "refused")
			assert.Contains(t, r.Output, "the workflow's token")
			assert.Contains(t, r.Output, "--allow-workflow-changes")
			assert.Equal(t, before, snapshot(t, root), "nothing was written")
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(tt.path))); err == nil {
				r = runTool(t, env, "edit_file", Args{"path": tt.path, "old_text": "runs", "new_text": "runs "})
				assert.Contains(t, r.Output, "refused", "edit_file refuses it too")
				assert.Equal(t, before, snapshot(t, root), "nothing was edited")
			}
		})
	}
}

func TestActionWritesAllowed(t *testing.T) {
	t.Parallel()
	env := newEnv(t, usingWorkflows())
	for _, p := range []string{"docs/action.yml", "ci/setup/run.sh", "ci/action.yml", "setup/action.yml"} {
		r := runTool(t, env, "write_file", Args{"path": p, "content": "x\n"})
		assert.Equal(t, "x\n", readFileT(t, env, p), "no workflow uses %s: %s", p, r.Output)
	}
	env.AllowWorkflowChanges = true
	r := runTool(t, env, "write_file", Args{"path": "ci/setup/action.yml", "content": "y\n"})
	assert.Equal(t, "y\n", readFileT(t, env, "ci/setup/action.yml"), "--allow-workflow-changes allows it: %s", r.Output)
}

// mapTree is a Tree over a map; a value "BIG" is larger than the cap, and
// a value "ERR" cannot be read.
type mapTree map[string]string

func (m mapTree) Workflows(context.Context) ([]string, error) {
	var out []string
	for p := range m {
		if strings.HasPrefix(p, WorkflowDir+"/") {
			out = append(out, p)
		}
	}
	return out, nil
}

func (m mapTree) Read(_ context.Context, rel string) ([]byte, error) {
	v, ok := m[rel]
	switch {
	case !ok:
		return nil, fs.ErrNotExist
	case v == "BIG":
		return nil, ErrTooLarge
	case v == "ERR":
		return nil, fmt.Errorf("read %s: %w", rel, fs.ErrPermission)
	}
	return []byte(v), nil
}

func TestReadGuard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		tree       mapTree
		guarded    []string
		notGuarded []string
	}{
		{name: "the uses of every kind", tree: mapTree(usingWorkflows()),
			guarded:    []string{".github/actions/any", "ci/setup/action.yml", "ci/setup/action.yaml", "ci/inner/action.yml", "tools/lint/action.yaml", "flow/action.yml", "ci/setup", "ci", "flow", ".github", ".github/workflows/new.yml"},
			notGuarded: []string{"docs/action.yml", "ci/setup/run.sh", "tools/lint/action.yml"}},
		{name: "the root action", tree: mapTree{".github/workflows/a.yml": "jobs: {a: {steps: [{uses: ./}]}}"},
			guarded: []string{"action.yml", "action.yaml"}, notGuarded: []string{"x/action.yml"}},
		{name: "a path out of the repository", tree: mapTree{".github/workflows/a.yml": "jobs: {a: {steps: [{uses: ./../x}]}}"},
			notGuarded: []string{"x/action.yml", "../x/action.yml"}},
		{name: "YAML GitHub would read and yaml.v3 does not", tree: mapTree{".github/workflows/a.yml": "jobs:\n\t- uses: ./odd\n"},
			guarded: []string{"odd/action.yml"}},
		{name: "a workflow too large to read", tree: mapTree{".github/workflows/a.yml": "BIG"},
			guarded: []string{"anything/action.yml", "x/action.yaml"}, notGuarded: []string{"x/run.sh"}},
		{name: "an action that cannot be read", tree: mapTree{".github/workflows/a.yml": "steps: [{uses: ./a}]", "a/action.yml": "ERR"},
			guarded: []string{"a/action.yml", "b/action.yml"}},
		{name: "a cycle of actions", tree: mapTree{".github/workflows/a.yml": "steps: [{uses: ./a}]", "a/action.yml": "runs: {steps: [{uses: ./b}]}", "b/action.yml": "runs: {steps: [{uses: ./a}]}"},
			guarded: []string{"a/action.yml", "b/action.yml"}, notGuarded: []string{"c/action.yml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := ReadGuard(t.Context(), tt.tree)
			require.NoError(t, err)
			for _, p := range tt.guarded {
				assert.True(t, g.Guards(p), "guards %s", p)
			}
			for _, p := range tt.notGuarded {
				assert.False(t, g.Guards(p), "does not guard %s", p)
			}
		})
	}
}
