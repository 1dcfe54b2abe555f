package land

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coreagent/core/internal/clip"
)

// The trees of one run, as git holds them: the session takes the
// workspace's tree at done (WorkTree), checks exactly that tree, and lands
// a commit that holds it. These read git's objects and write new ones;
// none touches a repository's index, working tree or HEAD.

// WorkTree writes the workspace's files, as git would commit them (new,
// changed and removed files; what .gitignore ignores left out), as one
// tree object and returns it. The workspace's index and HEAD stay as they
// are.
func (g Git) WorkTree(ctx context.Context, ws string) (string, error) {
	tree, err := g.FilesTree(ctx, ws, "HEAD")
	if err != nil {
		return "", fmt.Errorf("take the workspace's tree: %w", err)
	}
	return tree, nil
}

// FilesTree writes the files of the repository at dir as one tree object,
// built in an index of its own that starts from commit base: the
// repository's index, working tree and HEAD are not touched.
func (g Git) FilesTree(ctx context.Context, dir, base string) (string, error) {
	tmp, err := os.MkdirTemp("", "core-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	gi := gitRunner{git: g}.with("GIT_INDEX_FILE=" + filepath.Join(tmp, "index"))
	if _, err := gi.run(ctx, dir, "read-tree", base); err != nil {
		return "", err
	}
	if _, err := gi.run(ctx, dir, "add", "--all", "--", "."); err != nil {
		return "", err
	}
	return gi.run(ctx, dir, "write-tree")
}

// TreeOf is the tree of a commit of the workspace.
func (g Git) TreeOf(ctx context.Context, ws, commit string) (string, error) {
	tree, err := gitRunner{git: g}.run(ctx, ws, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{tree}")
	if err != nil || tree == "" {
		return "", fmt.Errorf("read the tree of %s: %v", clip.Hash(commit), err)
	}
	return tree, nil
}

// TreeChangedError is landing refused because the tree about to be
// committed or pushed is not the one the checks ran on.
type TreeChangedError struct {
	Checked, Landing string
	Why              string // what changed it, and what to do
}

func (e *TreeChangedError) Error() string {
	if e.Checked == "" {
		return fmt.Sprintf("not landed: no tree checked at done is recorded for this work: %s. Nothing was committed or pushed.", e.Why)
	}
	return fmt.Sprintf("not landed: the tree to land (%s) is not the tree the checks ran on (%s): %s. Nothing was committed or pushed.", clip.Hash(e.Landing), clip.Hash(e.Checked), e.Why)
}

// SameTree says whether the tree about to land is the checked one; the
// error says what to do when it is not (why). No checked tree at all is
// never the checked one.
func SameTree(checked, landing, why string) error {
	if checked != "" && checked == landing {
		return nil
	}
	return &TreeChangedError{Checked: checked, Landing: landing, Why: why}
}

// ChangedPaths lists the paths whose content in tree differs from commit
// from, as git spells them (relative, slash-separated, unquoted).
func (g Git) ChangedPaths(ctx context.Context, ws, from, tree string) ([]string, error) {
	out, err := gitRunner{git: g}.run(ctx, ws, "diff", "--name-only", "--no-renames", "-z", from, tree)
	if err != nil {
		return nil, fmt.Errorf("list the changed files: %w", err)
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// AddedLines keeps the lines a unified diff adds, without their "+"; the
// headers of each file ("+++ b/path") are not added lines.
func AddedLines(diff string) string {
	var b strings.Builder
	inHunk := false
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			inHunk = false
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case inHunk && strings.HasPrefix(line, "+"):
			b.WriteString(line[1:])
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// DiffStat is how much a change changed: files, lines added and removed
// (a binary file counts as a file, with no lines).
type DiffStat struct {
	Files      int `json:"files"`
	Insertions int `json:"insertions"`
	Deletions  int `json:"deletions"`
}

// DiffStat counts what changed from one commit to another in the
// workspace, with git's own numbers (--numstat; no diff drivers or text
// conversions of the workspace run).
func (g Git) DiffStat(ctx context.Context, ws, from, to string) (*DiffStat, error) {
	out, err := gitRunner{git: g}.run(ctx, ws, "diff", "--numstat", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("count the change: %w", err)
	}
	var ds DiffStat
	for line := range strings.Lines(out) {
		added, rest, ok := strings.Cut(strings.TrimRight(line, "\n"), "\t")
		deleted, _, ok2 := strings.Cut(rest, "\t")
		if !ok || !ok2 {
			continue
		}
		ds.Files++
		a, _ := strconv.Atoi(added) // "-" for a binary file
		d, _ := strconv.Atoi(deleted)
		ds.Insertions += a
		ds.Deletions += d
	}
	return &ds, nil
}

// DiffTree returns every change from commit from to tree, new files
// included.
func (g Git) DiffTree(ctx context.Context, ws, from, tree string) (string, error) {
	out, err := gitRunner{git: g}.run(ctx, ws, "diff", "--no-color", "--no-ext-diff", from, tree)
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	return out, nil
}
