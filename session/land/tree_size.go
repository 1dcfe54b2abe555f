package land

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/coreagent/core/internal/clip"
)

// MaxBlob is the largest file core lands: GitHub refuses a push that holds
// a file over 100 MiB, so a larger one could never be pushed, and a local
// repository has no use for a build's output of that size either.
const MaxBlob = 100 << 20

// Oversized lists the paths, of those changed, whose file in tree (of the
// workspace ws) is larger than MaxBlob, from the sizes git records.
func (g Git) Oversized(ctx context.Context, ws, tree string, changed []string) ([]string, error) {
	out, err := gitRunner{git: g}.raw(ctx, ws, "", "ls-tree", "-r", "-l", "-z", "--full-tree", tree)
	if err != nil {
		return nil, fmt.Errorf("list the files of the tree to land: %w", err)
	}
	entries, err := parseLsTree(out)
	if err != nil {
		return nil, err
	}
	return oversized(entries, changed, MaxBlob), nil
}

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
