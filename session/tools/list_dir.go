package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/coreagent/core/toon"
)

// maxEntries is the most entries list_dir shows.
const maxEntries = 500

type listDir struct{}

func (listDir) Name() string { return "list_dir" }

func (listDir) Doc() string {
	return `list_dir: list a directory's entries, sorted by name.
  tool: list_dir
  path: cmd
path is optional (default: the workspace root). Each entry has its name,
its type (file, dir or symlink) and its size in bytes. .git is never listed.`
}

// dirEntry is one row of a listing.
type dirEntry struct {
	Name string `toon:"name"`
	Type string `toon:"type"`
	Size int64  `toon:"size"`
}

// listing is what list_dir shows, encoded as TOON.
type listing struct {
	Path    string     `toon:"path"`
	Entries []dirEntry `toon:"entries"`
	Note    string     `toon:"note,omitempty"`
}

func (t listDir) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	path, err := args.OptionalString("path", ".")
	if err != nil {
		return fail(t.Name(), err)
	}
	abs, rel, err := env.Workspace.Resolve(path)
	if err != nil {
		return fail(t.Name(), err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return Result{Output: fmt.Sprintf("list_dir: %s does not exist", rel), Target: rel}, nil
		}
		return fsFail(t.Name(), rel, "list", err)
	}
	if !fi.IsDir() {
		return Result{Output: fmt.Sprintf("list_dir: %s is a file, not a directory; use read_file to read it", rel), Target: rel}, nil
	}
	des, err := os.ReadDir(abs)
	if err != nil {
		return fsFail(t.Name(), rel, "list", err)
	}
	l := listing{Path: rel, Entries: []dirEntry{}}
	total := 0
	for _, de := range des {
		if strings.EqualFold(de.Name(), ".git") {
			continue
		}
		total++
		if len(l.Entries) >= maxEntries {
			continue
		}
		l.Entries = append(l.Entries, describeEntry(de))
	}
	switch {
	case total > maxEntries:
		l.Note = fmt.Sprintf("%d of %d entries shown; list a subdirectory or use search to narrow down", maxEntries, total)
	case total == 0:
		l.Note = "the directory is empty"
	}
	out, err := toon.Marshal(l)
	if err != nil {
		return Result{}, fmt.Errorf("encode listing of %s: %w", rel, err)
	}
	return Result{Output: string(out), Target: rel}, nil
}

// describeEntry gives one entry's type and size. An entry that vanished
// since the directory was read shows with size 0.
func describeEntry(de fs.DirEntry) dirEntry {
	e := dirEntry{Name: strings.ToValidUTF8(de.Name(), "\uFFFD"), Type: "file"}
	switch m := de.Type(); {
	case m&fs.ModeSymlink != 0:
		e.Type = "symlink"
	case m.IsDir():
		e.Type = "dir"
	case !m.IsRegular():
		e.Type = "other"
	}
	if e.Type != "dir" {
		if info, err := de.Info(); err == nil {
			e.Size = info.Size()
		}
	}
	return e
}
