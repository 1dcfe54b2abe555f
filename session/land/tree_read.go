package land

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/tools"
)

// Tree is one version of the repository as git holds it (the start
// commit, or the tree landing would commit), read for the workflows and
// the local actions they use (tools.ReadGuard): from git's objects, so no
// link in the workspace is followed, and nothing larger than
// tools.MaxWorkflowSize is read.
type Tree struct {
	git      gitRunner
	ws, tree string
}

// Tree is tree (a commit or a tree) of the workspace ws.
func (g Git) Tree(ws, tree string) Tree {
	return Tree{git: gitRunner{git: g}, ws: ws, tree: tree}
}

// entry is one line of git ls-tree -l.
type entry struct {
	mode, kind, sha, path string
	size                  int64
}

func (t Tree) list(ctx context.Context, path string) ([]entry, error) {
	out, err := t.git.raw(ctx, t.ws, "", "--literal-pathspecs", "ls-tree", "-l", "-z", "--full-tree", t.tree, "--", path)
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", path, clip.Hash(t.tree), err)
	}
	var entries []entry
	for _, line := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		size, _ := strconv.ParseInt(f[3], 10, 64) // "-" for a tree
		entries = append(entries, entry{mode: f[0], kind: f[1], sha: f[2], size: size, path: p})
	}
	return entries, nil
}

// Workflows lists the files directly under .github/workflows.
func (t Tree) Workflows(ctx context.Context) ([]string, error) {
	entries, err := t.list(ctx, tools.WorkflowDir+"/")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.kind == "blob" {
			out = append(out, e.path)
		}
	}
	return out, nil
}

// Read returns the blob at rel when it is a regular file.
func (t Tree) Read(ctx context.Context, rel string) ([]byte, error) {
	entries, err := t.list(ctx, rel)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.path != rel || e.kind != "blob" || e.mode != "100644" && e.mode != "100755" {
			continue
		}
		if e.size > tools.MaxWorkflowSize {
			return nil, fmt.Errorf("%s: %w", rel, tools.ErrTooLarge)
		}
		out, err := t.git.raw(ctx, t.ws, "", "cat-file", "blob", e.sha)
		if err != nil {
			return nil, fmt.Errorf("read %s in %s: %w", rel, clip.Hash(t.tree), err)
		}
		return []byte(out), nil
	}
	return nil, fmt.Errorf("%s in %s: %w", rel, clip.Hash(t.tree), fs.ErrNotExist)
}
