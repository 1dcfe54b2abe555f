package tools

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/coreagent/core/toon"
)

const (
	maxMatches    = 200     // matches shown
	maxMatchText  = 200     // characters of a matching line shown
	maxSearchFile = 1 << 20 // larger files are skipped
)

type search struct{}

func (search) Name() string { return "search" }

func (search) Doc() string {
	return `search: find the lines matching a regular expression (Go RE2 syntax).
  tool: search
  pattern: func \w+Handler
  path: internal
path is optional (default: the whole workspace) and may name a file or a
directory. Binary files, files over 1 MiB, symlinks and .git are skipped.
Each match gives the path, the line number and the line's text.`
}

// match is one row of search's answer.
type match struct {
	Path string `toon:"path"`
	Line int    `toon:"line"`
	Text string `toon:"text"`
}

// matches is search's answer, encoded as TOON.
type matches struct {
	Matches []match `toon:"matches"`
	Note    string  `toon:"note,omitempty"`
}

func (t search) Run(ctx context.Context, env *Env, args Args) (Result, error) {
	pattern, err := args.String("pattern")
	if err != nil {
		return fail(t.Name(), err)
	}
	if pattern == "" {
		return fail(t.Name(), &ArgError{Arg: "pattern", Msg: "must not be empty"})
	}
	path, err := args.OptionalString("path", ".")
	if err != nil {
		return fail(t.Name(), err)
	}
	target := pattern
	re, err := regexp.Compile(pattern)
	if err != nil {
		return Result{Output: fmt.Sprintf("search: invalid pattern (Go RE2 syntax): %s", err), Target: target}, nil
	}
	abs, rel, err := env.Workspace.Resolve(path)
	if err != nil {
		return fail(t.Name(), err)
	}
	if rel != "." {
		target = pattern + " in " + rel
	}
	start, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return Result{Output: fmt.Sprintf("search: %s does not exist", rel), Target: target}, nil
		}
		return fsFail(t.Name(), rel, "search", err)
	}
	s := searcher{root: env.Workspace.Root(), re: re}
	if err := s.walk(ctx, start); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return fsFail(t.Name(), rel, "search", err)
	}
	if s.total == 0 {
		return Result{Output: fmt.Sprintf("no matches for %s under %s", pattern, rel), Target: target}, nil
	}
	m := matches{Matches: s.found}
	if s.total > len(s.found) {
		m.Note = fmt.Sprintf("%d of %d matches shown (%d more); narrow the pattern or the path", len(s.found), s.total, s.total-len(s.found))
	}
	out, err := toon.Marshal(m)
	if err != nil {
		return Result{}, fmt.Errorf("encode search results: %w", err)
	}
	return Result{Output: string(out), Target: target}, nil
}

// searcher walks a tree collecting matches.
type searcher struct {
	root  string
	re    *regexp.Regexp
	found []match
	total int
}

// walk searches the regular files under start (itself resolved, inside the
// root). Entries that cannot be read are skipped.
func (s *searcher) walk(ctx context.Context, start string) error {
	return filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p != start && strings.EqualFold(d.Name(), ".git") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		s.file(p)
		return nil
	})
}

// file searches one file, skipping it when it is large, binary or
// unreadable.
func (s *searcher) file(p string) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSearchFile {
		return
	}
	data, err := os.ReadFile(p)
	if err != nil || isBinary(data) {
		return
	}
	rel, err := filepath.Rel(s.root, p)
	if err != nil {
		return
	}
	rel = filepath.ToSlash(rel)
	lines := bytes.Split(data, []byte("\n"))
	if bytes.HasSuffix(data, []byte("\n")) {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !s.re.Match(line) {
			continue
		}
		s.total++
		if len(s.found) < maxMatches {
			s.found = append(s.found, match{Path: rel, Line: i + 1, Text: clip(string(line), maxMatchText)})
		}
	}
}

// clip trims a line's surrounding blanks and cuts it to n characters,
// marking the cut; invalid UTF-8 is replaced.
func clip(s string, n int) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
