package tools

import (
	"fmt"
	"path/filepath"
	"strings"
)

// WorkflowDir is where GitHub Actions finds a repository's workflows. A
// workflow the model writes runs, with the repository's secrets, on the
// next push: the tools refuse to write there, and landing refuses work that
// changes anything there, unless the user allowed it
// (--allow-workflow-changes, the Action's allow_workflow_changes).
const WorkflowDir = ".github/workflows"

// WorkflowRefusal is the reason given for a refused write under
// WorkflowDir: why, and how the user allows it.
const WorkflowRefusal = "files under " + WorkflowDir + " are workflows, which run with the repository's secrets on the next push, so core does not write them unless the user starts the session with --allow-workflow-changes (the Action's allow_workflow_changes input). Leave the workflow as it is, and say in done's summary what should change in it"

// InWorkflows reports whether rel, a path relative to the workspace root
// (slash- or system-separated, cleaned here), is .github/workflows or lies
// under it. Case is ignored: on a case-insensitive file system
// .GitHub/Workflows is the same directory.
func InWorkflows(rel string) bool {
	rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	parts := strings.Split(rel, "/")
	return len(parts) >= 2 && strings.EqualFold(parts[0], ".github") && strings.EqualFold(parts[1], "workflows")
}

// workflowRefusal returns the observation refusing a write of the resolved
// path abs (rel as the model named it), or "" when the write may go ahead.
// The path is checked as named and as the system resolves it, so a symlink
// inside the workspace (ci -> .github/workflows), or .github/workflows
// made a link to another directory, does not get a write past it.
func (e *Env) workflowRefusal(tool, abs, rel string) string {
	if e.AllowWorkflowChanges {
		return ""
	}
	root := e.Workspace.Root()
	refuse := InWorkflows(rel)
	if real, err := evalLenient(root, abs); err == nil && !refuse {
		if r, err := filepath.Rel(root, real); err == nil && InWorkflows(r) {
			refuse = true
		}
		if dir, err := evalLenient(root, filepath.Join(root, filepath.FromSlash(WorkflowDir))); err == nil && dir != filepath.Join(root, filepath.FromSlash(WorkflowDir)) && within(dir, real) {
			refuse = true
		}
	}
	if !refuse {
		return ""
	}
	return fmt.Sprintf("%s: refused %s: %s.", tool, rel, WorkflowRefusal)
}
