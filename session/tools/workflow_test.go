package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkflowWritesAreRefused: the model tries to plant a workflow, which
// would run with the repository's secrets on the next push, by every
// spelling of the path it can find. Each is refused with the reason and the
// flag that allows it, and nothing is written.
func TestWorkflowWritesAreRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
		tool  string
		path  string
	}{
		{name: "new workflow", tool: "write_file", path: ".github/workflows/evil.yml"},
		{name: "dot-slash and double slash", tool: "write_file", path: "./.github//workflows/evil.yml"},
		{name: "through dot-dot", tool: "write_file", path: "docs/../.github/workflows/evil.yml"},
		{name: "absolute inside the workspace", tool: "write_file", path: "ROOT/.github/workflows/evil.yml"},
		{name: "other case", tool: "write_file", path: ".GitHub/Workflows/evil.yml"},
		{name: "the directory itself", tool: "write_file", path: ".github/workflows"},
		{name: "nested", tool: "write_file", path: ".github/workflows/sub/evil.yml"},
		{name: "through a symlinked directory", tool: "write_file", path: "ci/evil.yml", setup: func(t *testing.T, root string) {
			require.NoError(t, os.Symlink(".github/workflows", filepath.Join(root, "ci")))
		}},
		{name: "workflows made a link elsewhere", tool: "write_file", path: "hidden/evil.yml", setup: func(t *testing.T, root string) {
			require.NoError(t, os.RemoveAll(filepath.Join(root, ".github", "workflows")))
			require.NoError(t, os.MkdirAll(filepath.Join(root, "hidden"), 0o755))
			require.NoError(t, os.Symlink("../hidden", filepath.Join(root, ".github", "workflows")))
		}},
		{name: "edit an existing workflow", tool: "edit_file", path: ".github/workflows/ci.yml"},
		{name: "edit through a symlinked file", tool: "edit_file", path: "ci.yml", setup: func(t *testing.T, root string) {
			require.NoError(t, os.Symlink(".github/workflows/ci.yml", filepath.Join(root, "ci.yml")))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, map[string]string{".github/workflows/ci.yml": "on: push\n", "docs/x": "x"})
			root := env.Workspace.Root()
			if tt.setup != nil {
				tt.setup(t, root)
			}
			before := snapshot(t, root)
			path := tt.path
			if len(path) > 4 && path[:4] == "ROOT" {
				path = root + path[4:]
			}
			args := Args{"path": path, "content": "on: push\njobs: {steal: {runs-on: ubuntu-latest, steps: [{run: env}]}}\n"}
			if tt.tool == "edit_file" {
				args = Args{"path": path, "old_text": "on: push", "new_text": "on: [push, pull_request_target]"}
			}
			r := runTool(t, env, tt.tool, args)
			assert.Contains(t, r.Output, "refused")
			assert.Contains(t, r.Output, "run with the repository's secrets")
			assert.Contains(t, r.Output, "--allow-workflow-changes")
			assert.Contains(t, r.Output, "allow_workflow_changes")
			assert.Equal(t, before, snapshot(t, root), "nothing was written")
		})
	}
}

func TestWorkflowWritesWhenAllowed(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{".github/workflows/ci.yml": "on: push\n"})
	env.AllowWorkflowChanges = true
	r := runTool(t, env, "write_file", Args{"path": ".github/workflows/new.yml", "content": "on: push\n"})
	assert.Equal(t, "on: push\n", readFileT(t, env, ".github/workflows/new.yml"), r.Output)
	r = runTool(t, env, "edit_file", Args{"path": ".github/workflows/ci.yml", "old_text": "push", "new_text": "pull_request"})
	assert.NotContains(t, r.Output, "refused")
	assert.Equal(t, "on: pull_request\n", readFileT(t, env, ".github/workflows/ci.yml"))
}

func TestNotWorkflows(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	for _, p := range []string{".github/dependabot.yml", ".github/CODEOWNERS", "workflows/x.yml", "docs/.github/workflows/x.yml", ".github/workflowsx/y.yml"} {
		r := runTool(t, env, "write_file", Args{"path": p, "content": "x\n"})
		assert.Equal(t, "x\n", readFileT(t, env, p), "%s: %s", p, r.Output)
	}
}

func TestInWorkflows(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		".github/workflows": true, ".github/workflows/a.yml": true, "./.github//workflows/a.yml": true,
		".GITHUB/WORKFLOWS/a.yml": true, ".github": false, ".github/x": false, "a/.github/workflows/b": false,
	} {
		assert.Equal(t, want, InWorkflows(p), p)
	}
}

// snapshot lists every path under root with its content (links by target).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		case fi.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			out[rel] = string(b)
			return err
		}
		return nil
	}))
	return out
}
