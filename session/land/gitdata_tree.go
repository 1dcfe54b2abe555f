package land

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
)

// rawChange is one path git diff-tree --raw lists.
type rawChange struct {
	oldMode, newMode string
	sha              string // the new object
	status           byte   // A, M, D, T
	path             string
}

// parseRawDiff reads git diff-tree -r --raw -z --no-renames output:
// ":oldmode newmode oldsha newsha status" NUL path NUL, per path.
func parseRawDiff(out string) ([]rawChange, error) {
	fields := strings.Split(out, "\x00")
	if len(fields) > 0 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	if len(fields)%2 != 0 {
		return nil, fmt.Errorf("git diff-tree output ends in the middle of an entry")
	}
	var changes []rawChange
	for i := 0; i < len(fields); i += 2 {
		meta, path := fields[i], fields[i+1]
		f := strings.Fields(strings.TrimPrefix(meta, ":"))
		if !strings.HasPrefix(meta, ":") || len(f) != 5 || len(f[4]) != 1 || path == "" {
			return nil, fmt.Errorf("git diff-tree entry %q for %q is not \":mode mode sha sha status\"", meta, path)
		}
		changes = append(changes, rawChange{oldMode: f[0], newMode: f[1], sha: f[3], status: f[4][0], path: path})
	}
	return changes, nil
}

// treeEntries lists what commit c changes of its first parent's tree as
// entries of a tree to make on GitHub, uploading each new or changed
// file's blob; base is the parent's tree ("" for a root commit).
func (r *Repo) treeEntries(ctx context.Context, g gitRunner, ws string, c localCommit) (base string, entries []gh.TreeEntry, err error) {
	args := []string{"diff-tree", "-r", "--raw", "-z", "--no-renames", "--no-commit-id"}
	if len(c.parents) == 0 {
		args = append(args, "--root", c.sha)
	} else {
		if base, err = g.run(ctx, ws, "rev-parse", "--verify", c.parents[0]+"^{tree}"); err != nil {
			return "", nil, fmt.Errorf("read the tree of %s: %w", clip.Hash(c.parents[0]), err)
		}
		args = append(args, c.parents[0], c.sha)
	}
	out, err := g.raw(ctx, ws, "", args...)
	if err != nil {
		return "", nil, fmt.Errorf("list what %s changes: %w", clip.Hash(c.sha), err)
	}
	changes, err := parseRawDiff(out)
	if err != nil {
		return "", nil, err
	}
	for _, ch := range changes {
		e, err := r.treeEntry(ctx, g, ws, ch)
		if err != nil {
			return "", nil, err
		}
		entries = append(entries, e)
	}
	return base, entries, nil
}

// treeEntry turns one change into a tree entry: a deletion, a submodule
// by SHA, or a blob (a file, or a symbolic link's target) uploaded.
func (r *Repo) treeEntry(ctx context.Context, g gitRunner, ws string, ch rawChange) (gh.TreeEntry, error) {
	switch {
	case ch.status == 'D':
		return gh.TreeEntry{Path: ch.path, Mode: ch.oldMode, Delete: true}, nil
	case ch.newMode == "160000":
		return gh.TreeEntry{Path: ch.path, Mode: ch.newMode, SHA: ch.sha}, nil
	case ch.newMode != "100644" && ch.newMode != "100755" && ch.newMode != "120000":
		return gh.TreeEntry{}, fmt.Errorf("not landed: %s has the mode %s, which core does not land", ch.path, ch.newMode)
	}
	size, err := g.run(ctx, ws, "cat-file", "-s", ch.sha)
	if err != nil {
		return gh.TreeEntry{}, fmt.Errorf("read the size of %s: %w", ch.path, err)
	}
	if n, err := strconv.ParseInt(size, 10, 64); err != nil || n > gh.MaxBlob {
		return gh.TreeEntry{}, fmt.Errorf("not landed: %s is %s bytes, over GitHub's limit of %d bytes for a file: nothing was pushed; leave it out of the work (.gitignore) and land again", ch.path, size, gh.MaxBlob)
	}
	content, err := g.raw(ctx, ws, "", "cat-file", "blob", ch.sha)
	if err != nil {
		return gh.TreeEntry{}, fmt.Errorf("read %s: %w", ch.path, err)
	}
	sha, err := r.client.CreateBlob(ctx, r.owner, r.repoNm, []byte(content))
	if err != nil {
		return gh.TreeEntry{}, fmt.Errorf("not landed: %s: %w", ch.path, err)
	}
	if sha != ch.sha {
		return gh.TreeEntry{}, fmt.Errorf("not landed: GitHub stored %s as the blob %s, not %s: nothing was pushed", ch.path, sha, ch.sha)
	}
	return gh.TreeEntry{Path: ch.path, Mode: ch.newMode, SHA: sha}, nil
}
