package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/coreagent/core/sandbox/manifest"
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

// ActionRefusal is the reason given for a refused write of an action a
// workflow runs: why, and how the user allows it.
const ActionRefusal = "it is an action that a workflow runs (a file under " + ActionsDir + ", or the action.yml or action.yaml of an action a workflow uses locally with `uses: ./…`), which runs with the repository's secrets and the workflow's token on the next push, so core does not write it unless the user starts the session with --allow-workflow-changes (the Action's allow_workflow_changes input). Leave it as it is, and say in done's summary what should change in it"

// workflowRefusal returns the observation refusing a write of the resolved
// path abs (rel as the model named it), or "" when the write may go ahead:
// a workflow, or an action a workflow runs (see Guard). The path is checked
// as named and as the system resolves it, so a symlink inside the
// workspace (ci -> .github/workflows), or .github/workflows or
// .github/actions made a link to another directory, does not get a write
// past it. The local actions are those the workflows used when the session
// started (Env.Guard) and those they use now.
func (e *Env) workflowRefusal(ctx context.Context, tool, abs, rel string) (string, error) {
	if e.AllowWorkflowChanges {
		return "", nil
	}
	root := e.Workspace.Root()
	names := []string{rel}
	if real, err := evalLenient(root, abs); err == nil {
		if r, err := filepath.Rel(root, real); err == nil {
			names = append(names, r)
		}
		for _, dir := range []string{WorkflowDir, ActionsDir} {
			d := filepath.Join(root, filepath.FromSlash(dir))
			if link, err := evalLenient(root, d); err == nil && link != d && within(link, real) {
				names = append(names, filepath.Join(dir, "linked"))
			}
		}
	}
	for _, n := range names {
		if InWorkflows(n) {
			return fmt.Sprintf("%s: refused %s: %s.", tool, rel, WorkflowRefusal), nil
		}
	}
	guard := &Guard{}
	guard.Merge(e.Guard)
	if slices.ContainsFunc(names, isActionFile) {
		now, err := ReadGuard(ctx, workspaceTree{root: root})
		if err != nil {
			return "", fmt.Errorf("%s: read the workflows: %w", tool, err)
		}
		guard.Merge(now)
	}
	if slices.ContainsFunc(names, guard.Guards) {
		return fmt.Sprintf("%s: refused %s: %s.", tool, rel, ActionRefusal), nil
	}
	return "", nil
}

// workspaceTree reads the workspace as host code must: through no link,
// no larger than MaxWorkflowSize.
type workspaceTree struct{ root string }

func (w workspaceTree) Workflows(context.Context) ([]string, error) {
	dir := w.root
	for _, c := range strings.Split(WorkflowDir, "/") {
		dir = filepath.Join(dir, c)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.IsDir() {
			return nil, nil // a link or a file where the directory was: GitHub runs no workflow there
		}
		if err != nil {
			return nil, fmt.Errorf("look at %s: %w", WorkflowDir, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", WorkflowDir, err)
	}
	var out []string
	for _, en := range entries {
		if en.Type().IsRegular() {
			out = append(out, WorkflowDir+"/"+en.Name())
		}
	}
	return out, nil
}

func (w workspaceTree) Read(_ context.Context, rel string) ([]byte, error) {
	fi, err := os.Lstat(filepath.Join(w.root, filepath.FromSlash(rel)))
	if err == nil && fi.Mode().IsRegular() && fi.Size() > MaxWorkflowSize {
		return nil, fmt.Errorf("%s: %w", rel, ErrTooLarge)
	}
	b, err := manifest.ReadWorkspaceFile(w.root, rel, MaxWorkflowSize)
	if err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	return b, err
}
