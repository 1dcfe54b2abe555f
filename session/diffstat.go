package session

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

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
