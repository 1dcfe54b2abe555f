package land

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// InputsRef is the private ref that keeps the user's uncommitted work a
// session started from, in the user's own repository.
func InputsRef(id string) string { return "refs/core/inputs/" + id }

// snapshot records the working tree of a local repository, tracked changes
// and untracked files that are not ignored, as a commit on top of head; the
// clone keeps it under InputsRef(id) (keepSnapshot), so that a session
// refused before it starts leaves no ref behind. The user's index, working
// tree and HEAD are not touched: the tree is built in an index of its own.
// It returns the commit and how many paths differ from head; "" and 0 when
// the working tree is clean.
func (r *Local) snapshot(ctx context.Context, id, head string) (sha string, changes int, err error) {
	status, err := r.git.run(ctx, r.path, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return "", 0, fmt.Errorf("read the working tree of %s: %w", r.path, err)
	}
	if status == "" {
		return "", 0, nil
	}
	changes = len(strings.Split(status, "\n"))
	tree, err := r.git.git.FilesTree(ctx, r.path, head)
	if err != nil {
		return "", 0, fmt.Errorf("snapshot the working tree: %w", err)
	}
	msg := fmt.Sprintf("core: uncommitted work in %s when session %s started\n", r.path, id)
	args := append(GitIdentity(), "commit-tree", "--no-gpg-sign", tree, "-p", head, "-F", "-")
	if sha, err = r.git.runInput(ctx, r.path, msg, args...); err != nil {
		return "", 0, fmt.Errorf("snapshot the working tree: %w", err)
	}
	return sha, changes, nil
}

// keepSnapshot keeps the snapshot a session starts from under ref in the
// repository, once the session exists.
func (r *Local) keepSnapshot(ctx context.Context, ref, sha string) error {
	if _, err := r.git.run(ctx, r.path, "update-ref", ref, sha); err != nil {
		return fmt.Errorf("keep the snapshot of the working tree: %w", err)
	}
	return nil
}

// RemoveInputs deletes the ref that kept the uncommitted work session id
// started from (InputsRef), in the local repository at repo, if it still
// names that work, commit start: a ref the user moved, or a repository
// that is gone, is left alone.
func (g Git) RemoveInputs(ctx context.Context, repo, id, start string) error {
	if fi, err := os.Stat(repo); err != nil || !fi.IsDir() {
		return nil
	}
	r := gitRunner{git: g}
	ref := InputsRef(id)
	if sha, err := r.run(ctx, repo, "rev-parse", "--verify", "--quiet", ref); err != nil || sha != start {
		return nil
	}
	if _, err := r.run(ctx, repo, "update-ref", "-d", ref, start); err != nil {
		return fmt.Errorf("delete %s in %s: %w", ref, repo, err)
	}
	return nil
}

// rebuild makes the commit that lands a session that started from a
// snapshot: the session's own changes (snapshot..HEAD of the workspace)
// applied onto parent, so that the user's uncommitted work is not
// published with them. The commit is made in the workspace and kept under
// ref there; it fails, landing nothing, when the session's changes do not
// apply without the uncommitted work.
func rebuild(ctx context.Context, g gitRunner, ws, snapshot, onto, parent, ref string) (string, error) {
	diff, err := g.raw(ctx, ws, "", "diff", "--binary", "--no-color", "--no-ext-diff", "--full-index", snapshot, "HEAD")
	if err != nil {
		return "", fmt.Errorf("land without the uncommitted work: %w", err)
	}
	msg, err := g.run(ctx, ws, "log", "-1", "--format=%B", "HEAD")
	if err != nil {
		return "", fmt.Errorf("land without the uncommitted work: %w", err)
	}
	dir, err := os.MkdirTemp("", "core-index-")
	if err != nil {
		return "", fmt.Errorf("land without the uncommitted work: %w", err)
	}
	defer os.RemoveAll(dir)
	gi := g.with("GIT_INDEX_FILE=" + filepath.Join(dir, "index"))
	if _, err := gi.run(ctx, ws, "read-tree", onto); err != nil {
		return "", fmt.Errorf("land without the uncommitted work: %w", err)
	}
	if diff != "" {
		if _, err := gi.runInput(ctx, ws, diff, "apply", "--cached", "--binary", "--whitespace=nowarn"); err != nil {
			return "", &OverlapError{detail: err.Error()}
		}
	}
	tree, err := gi.run(ctx, ws, "write-tree")
	if err != nil {
		return "", fmt.Errorf("land without the uncommitted work: %w", err)
	}
	// The message is the checked commit's, whose Checked-tree names a
	// tree with the uncommitted work: this one says it leaves that out.
	msg += "\nUncommitted-work: left out (the session started from it; the checked tree holds it, this commit's tree was not checked)\n"
	args := append(GitIdentity(), "commit-tree", "--no-gpg-sign", tree, "-p", parent, "-F", "-")
	sha, err := g.runInput(ctx, ws, msg, args...)
	if err != nil {
		return "", fmt.Errorf("land without the uncommitted work: %w", err)
	}
	if _, err := g.run(ctx, ws, "update-ref", ref, sha); err != nil {
		return "", fmt.Errorf("land without the uncommitted work: %w", err)
	}
	return sha, nil
}

// OverlapError is a session's change that does not apply without the
// user's uncommitted work it started from: the user's state, not a broken
// machine (FailConfiguration). land says what to do.
type OverlapError struct {
	detail string // git apply's words
	advice string
}

func (e *OverlapError) Error() string {
	msg := "not landed: the session's changes overlap the uncommitted work it started from and do not apply without it"
	if e.advice != "" {
		msg += ": " + e.advice
	}
	return msg + " (" + strings.TrimSpace(e.detail) + ")"
}
