package testclass

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/coreagent/core/session/contract"
)

// The bounds on what a pull request may ask the harness to run.
const (
	// MaxFiles is how many test files are classified; the rest are counted
	// in Classification.LeftOut, not run.
	MaxFiles = 30
	// MaxFileBytes is the largest test file read or run.
	MaxFileBytes = 1 << 20
)

// Ecosystem names the runner of a test file.
type Ecosystem string

// The ecosystems whose test files are classified.
const (
	Go     Ecosystem = "go"
	Python Ecosystem = "python"
	Node   Ecosystem = "node"
	Rust   Ecosystem = "rust"
)

// testFile is a test file of the head, found among the changed files.
type testFile struct {
	path      string
	ecosystem Ecosystem
	blob      string // the head's blob
	mode      string // the head's mode: 100644 or 100755
	new       bool   // the base has no regular file at path
	refused   string // why it is not run, when it is not
}

// notTestFolders hold files no runner takes as the repository's tests:
// fixtures and other people's code.
var notTestFolders = []string{"testdata", "vendor", "node_modules", "fixtures"}

// ecosystemOf says whose test file path is, by its name alone, or "". A
// file in a fixtures' or dependencies' folder, or in a hidden one, is
// none (a path outside the repository is left to BadPath).
func ecosystemOf(p string) Ecosystem {
	dir, name := path.Split(p)
	if slices.ContainsFunc(strings.Split(strings.Trim(dir, "/"), "/"), func(d string) bool {
		return slices.Contains(notTestFolders, d) || strings.HasPrefix(d, ".") && d != "." && d != ".."
	}) {
		return ""
	}
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	switch ext {
	case ".go":
		if strings.HasSuffix(stem, "_test") && stem != "_test" {
			return Go
		}
	case ".py":
		if (strings.HasPrefix(stem, "test_") && stem != "test_") || (strings.HasSuffix(stem, "_test") && stem != "_test") {
			return Python
		}
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts":
		if stem == "test" || strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") ||
			slices.ContainsFunc(strings.Split(strings.Trim(dir, "/"), "/"), func(d string) bool { return d == "test" || d == "tests" || d == "__tests__" }) {
			return Node
		}
	case ".rs":
		if strings.HasPrefix(p, "tests/") && strings.Count(p, "/") == 1 || strings.HasPrefix(p, "src/") {
			return Rust
		}
	}
	return ""
}

// BadPath says why p is not a path of a file inside the repository, or
// "": empty, absolute, not clean, with a "..", or inside .git.
func BadPath(p string) string {
	switch {
	case p == "" || strings.ContainsRune(p, 0):
		return "an empty path or one with a NUL byte"
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`):
		return "not a path inside the repository"
	case path.Clean(p) != p || p == "." || slices.Contains(strings.Split(p, "/"), ".."):
		return "not a clean path inside the repository"
	case slices.Contains(strings.Split(p, "/"), ".git"):
		return "a path inside .git"
	}
	return ""
}

// find picks out the test files among changed, at most MaxFiles of them,
// and looks each up in the head's and the base's git objects in the clone
// at dir: a link, a submodule or a file over MaxFileBytes is refused. It
// returns them and how many test files it left out. A path changed that
// is not in the head (deleted) has nothing to run.
func find(ctx context.Context, git contract.Git, dir, base, head string, changed []string) ([]testFile, int, error) {
	var files []testFile
	leftOut := 0
	seen := map[string]bool{}
	for _, p := range changed {
		e := ecosystemOf(p)
		if e == "" || seen[p] {
			continue
		}
		seen[p] = true
		if len(files) == MaxFiles {
			leftOut++
			continue
		}
		f := testFile{path: p, ecosystem: e}
		if why := BadPath(p); why != "" {
			f.refused = why
			files = append(files, f)
			continue
		}
		entry, err := LsTree(ctx, git, dir, head, p)
		if err != nil {
			return nil, 0, err
		}
		if entry.Mode == "" {
			continue
		}
		f.blob, f.mode, f.refused = entry.OID, entry.Mode, refusal(entry)
		if f.refused == "" && e == Rust && strings.HasPrefix(p, "src/") {
			if ok, err := hasTestModule(ctx, git, dir, entry.OID); err != nil {
				return nil, 0, err
			} else if !ok {
				continue // a source file without tests of its own
			}
		}
		was, err := LsTree(ctx, git, dir, base, p)
		if err != nil {
			return nil, 0, err
		}
		f.new = was.Mode != "100644" && was.Mode != "100755"
		files = append(files, f)
	}
	return files, leftOut, nil
}

// TreeEntry is one entry of git ls-tree -l: its mode (120000 a link,
// 040000 a folder, 160000 a submodule), its kind (blob, tree, commit),
// its object and, for a blob, its size.
type TreeEntry struct {
	Mode, Kind, OID string
	Size            int64
}

// LsTree looks p up in commit's tree in the clone at dir, from its git
// objects alone; an entry with no Mode: not there.
func LsTree(ctx context.Context, git contract.Git, dir, commit, p string) (TreeEntry, error) {
	out, err := git(ctx, dir, "--literal-pathspecs", "ls-tree", "-l", "--full-tree", commit, "--", p)
	if err != nil {
		return TreeEntry{}, fmt.Errorf("look up %s in %s: %w", p, commit, err)
	}
	meta, name, ok := strings.Cut(out, "\t")
	if !ok || name != p {
		return TreeEntry{}, nil // not there, or a name git had to quote: not ours
	}
	fields := strings.Fields(meta)
	if len(fields) != 4 {
		return TreeEntry{}, fmt.Errorf("look up %s in %s: git ls-tree said %q", p, commit, out)
	}
	size, _ := strconv.ParseInt(fields[3], 10, 64) // "-" for a tree or a submodule
	return TreeEntry{Mode: fields[0], Kind: fields[1], OID: fields[2], Size: size}, nil
}

// refusal says why a head's entry is not run, or "".
func refusal(e TreeEntry) string {
	switch {
	case e.Mode == "120000":
		return "a symbolic link: not followed, not run"
	case e.Kind == "commit":
		return "a submodule: not run"
	case e.Kind != "blob":
		return "not a file: not run"
	case e.Size > MaxFileBytes:
		return fmt.Sprintf("%d bytes, over the %d a test file may have: not run", e.Size, MaxFileBytes)
	}
	return ""
}

// hasTestModule reports whether the Rust source in blob declares tests:
// a #[cfg(test)] or a #[test].
func hasTestModule(ctx context.Context, git contract.Git, dir, blob string) (bool, error) {
	text, err := git(ctx, dir, "cat-file", "blob", blob)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", blob, err)
	}
	return strings.Contains(text, "#[cfg(test)]") || strings.Contains(text, "#[test]"), nil
}

// Changed are the paths that differ between base and head in the clone
// at dir and are there in head (added, changed, or a rename's new name),
// as git diff names them: what Classify takes when no list of a pull
// request's files is at hand (a local review).
func Changed(ctx context.Context, git contract.Git, dir, base, head string) ([]string, error) {
	out, err := git(ctx, dir, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", base, head, "--")
	if err != nil {
		return nil, fmt.Errorf("list the paths changed between %s and %s: %w", base, head, err)
	}
	var paths []string
	for p := range strings.SplitSeq(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}
