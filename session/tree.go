package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/land"
)

// One tree, from check to landing: at done the run's box is frozen (every
// process in it ended), and the harness takes one tree object of the
// workspace (workTree). The result checks run on a checkout of exactly
// that tree, the landing guard reads that tree, the commit holds that
// tree (commitTree), and the push or the fork's review carries that
// commit. Nothing reads the live workspace again after the freeze.

// freeze ends everything in the run's box before its work is checked: the
// browser (a resumed run starts it again on first use), the build's
// warm-up, every background process and whatever a command left behind.
// Nothing in the box runs again unless the run resumes; its next command
// starts a new box.
func (s *run) freeze() {
	s.closeBrowser()
	s.stopWarm()
	if s.opts.Services.Sandbox == nil {
		return
	}
	if err := s.opts.Services.Sandbox.CloseBox(s.rec.Workspace); err != nil {
		fmt.Fprintf(s.opts.Live.Progress, "core: closing the run's box: %v\n", err)
	}
}

// reopen gives a run that resumes after done what freeze took: its
// browser, started again on first use.
func (s *run) reopen(ctx context.Context) error {
	if s.browser != nil || !s.opts.Browser.On {
		return nil
	}
	return s.openBrowser(ctx)
}

// workTree writes the workspace's files, as git would commit them (new,
// changed and removed files; what .gitignore ignores left out), as one
// tree object and returns it. The workspace's index and HEAD stay as they
// are.
func workTree(ctx context.Context, g gitRunner, ws string) (string, error) {
	tree, err := filesTree(ctx, g, ws, "HEAD")
	if err != nil {
		return "", fmt.Errorf("take the workspace's tree: %w", err)
	}
	return tree, nil
}

// filesTree writes the files of the repository at dir as one tree object,
// built in an index of its own that starts from commit base: the
// repository's index, working tree and HEAD are not touched.
func filesTree(ctx context.Context, g gitRunner, dir, base string) (string, error) {
	tmp, err := os.MkdirTemp("", "core-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	gi := g.with("GIT_INDEX_FILE=" + filepath.Join(tmp, "index"))
	if _, err := gi.run(ctx, dir, "read-tree", base); err != nil {
		return "", err
	}
	if _, err := gi.run(ctx, dir, "add", "--all", "--", "."); err != nil {
		return "", err
	}
	return gi.run(ctx, dir, "write-tree")
}

// treeOf is the tree of a commit of the workspace.
func treeOf(ctx context.Context, g gitRunner, ws, commit string) (string, error) {
	tree, err := g.run(ctx, ws, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{tree}")
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

// sameTree says whether the tree about to land is the checked one; the
// error says what to do when it is not (why). No checked tree at all is
// never the checked one.
func sameTree(checked, landing, why string) error {
	if checked != "" && checked == landing {
		return nil
	}
	return &TreeChangedError{Checked: checked, Landing: landing, Why: why}
}

// commitTree commits tree on top of the workspace's HEAD with message and
// moves the branch there (only from the HEAD it read). The workspace's
// index follows the new commit; its files are not touched, so a resumed
// run sees what differs from the checked tree, if anything, as new work.
// When HEAD already holds tree (an earlier run landed it), HEAD is the
// commit.
func commitTree(ctx context.Context, g gitRunner, key land.SigningKey, ws, tree, message string) (string, error) {
	head, err := g.run(ctx, ws, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("commit: read the workspace's HEAD: %w", err)
	}
	if now, err := treeOf(ctx, g, ws, head); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	} else if now == tree {
		return head, nil
	}
	var sha string
	if key.Set() {
		sha, err = key.CommitTree(ctx, g.landGit(), ws, tree, head, message)
	} else {
		// Never signed in the workspace, whose configuration the session
		// could change: a local repository asking for signatures gets its
		// commit signed there (land.Local), GitHub signs what the API makes.
		args := append(land.GitIdentity(), "commit-tree", "--no-gpg-sign", tree, "-p", head, "-F", "-")
		sha, err = g.runInput(ctx, ws, message, args...)
	}
	if err != nil {
		return "", fmt.Errorf("commit the checked tree %s: %w", clip.Hash(tree), err)
	}
	subject, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
	if _, err := g.run(ctx, ws, "update-ref", "-m", g.scrub.String("commit: "+subject), "HEAD", sha, head); err != nil {
		return "", fmt.Errorf("move the branch to the new commit: %w", err)
	}
	if _, err := g.run(ctx, ws, "read-tree", sha); err != nil {
		return "", fmt.Errorf("set the workspace's index to the new commit: %w", err)
	}
	return sha, nil
}

// maxBlob is the largest file core lands: GitHub refuses a push that holds
// a file over 100 MiB, so a larger one could never be pushed, and a local
// repository has no use for a build's output of that size either.
const maxBlob = 100 << 20

// treeEntry is one file of a tree, as git ls-tree -r -l lists it.
type treeEntry struct {
	path string
	size int64 // -1 for what is not a blob (a submodule)
}

// parseLsTree reads the output of git ls-tree -r -l -z: "<mode> SP <type>
// SP <object> SP+ <size> TAB <path>" entries, NUL-terminated.
func parseLsTree(out string) ([]treeEntry, error) {
	var entries []treeEntry
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		meta, path, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 || path == "" {
			return nil, fmt.Errorf("read the tree's files: unexpected entry %q", clip.Line(rec, 100))
		}
		size := int64(-1)
		if fields[3] != "-" {
			n, err := strconv.ParseInt(fields[3], 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("read the tree's files: bad size in %q", clip.Line(rec, 100))
			}
			size = n
		}
		entries = append(entries, treeEntry{path: path, size: size})
	}
	return entries, nil
}

// oversized lists the paths, of those changed, whose file is larger than
// limit.
func oversized(entries []treeEntry, changed []string, limit int64) []string {
	want := make(map[string]bool, len(changed))
	for _, p := range changed {
		want[p] = true
	}
	var big []string
	for _, e := range entries {
		if want[e.path] && e.size > limit {
			big = append(big, e.path)
		}
	}
	return big
}

// checkSizes refuses a tree whose changed files include one over maxBlob.
func (s *run) checkSizes(ctx context.Context, tree string, changed []string) error {
	out, err := s.git.raw(ctx, s.rec.Workspace, "", "ls-tree", "-r", "-l", "-z", "--full-tree", tree)
	if err != nil {
		return fmt.Errorf("list the files of the tree to land: %w", err)
	}
	entries, err := parseLsTree(out)
	if err != nil {
		return err
	}
	big := oversized(entries, changed, maxBlob)
	if len(big) == 0 {
		return nil
	}
	return &LandingError{What: fmt.Sprintf("adds files over %d MiB", maxBlob>>20), Files: big, Why: fmt.Sprintf(
		"GitHub refuses a push that holds a file over %d MiB, so it could never land: remove them from the workspace %s (or add them to .gitignore) and resume the session",
		maxBlob>>20, s.rec.Workspace)}
}

// checkCommitTree refuses to push or post a commit whose tree is not the
// one the checks ran on.
func (s *run) checkCommitTree(ctx context.Context) error {
	tree, err := treeOf(ctx, s.git, s.rec.Workspace, s.rec.Commit)
	if err != nil {
		return err
	}
	return sameTree(s.tree, tree, fmt.Sprintf("the commit %s does not hold the checked tree; resume the session to check it again (core session resume %s)", clip.Hash(s.rec.Commit), s.rec.ID))
}

// DiffStat is how much a change changed: files, lines added and removed
// (a binary file counts as a file, with no lines).
type DiffStat struct {
	Files      int `json:"files"`
	Insertions int `json:"insertions"`
	Deletions  int `json:"deletions"`
}

// diffStat counts what changed from one commit to another in the
// workspace, with git's own numbers (--numstat; no diff drivers or text
// conversions of the workspace run).
func diffStat(ctx context.Context, g gitRunner, ws, from, to string) (*DiffStat, error) {
	out, err := g.run(ctx, ws, "diff", "--numstat", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color", from, to, "--")
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

// diffTree returns every change from commit from to tree, new files
// included.
func diffTree(ctx context.Context, g gitRunner, ws, from, tree string) (string, error) {
	out, err := g.run(ctx, ws, "diff", "--no-color", "--no-ext-diff", from, tree)
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	return out, nil
}
