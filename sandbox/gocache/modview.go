package gocache

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/mod/module"
)

// Confined commands do not see the module cache: they see a view of it
// that holds only what the workspace's sum files (go.sum, go.work.sum and
// the go.sum of every module go.work uses) name: for each module version,
// its files under cache/download (.mod, .info, .zip, .ziphash, .lock) and,
// when the line is not a "/go.mod" one, its extracted tree (a module the
// download fetched the go.mod of alone, for the module graph, is seen
// with that go.mod). Modules fetched
// for other projects, private ones too, stay out of sight.
//
// Core builds a view on the host, after the module download, from the
// sum files read with ReadWorkspaceFile (no links, a size cap) and every
// module path and version checked with module.Check, as hard links to the
// cache's files (copies when the view cannot be on the cache's file
// system), and binds it read-only where GOMODCACHE points: a link through
// a read-only mount can be neither written nor truncated. A view is keyed
// by the module cache and the set of module versions it holds of those
// named, so runs that need the same modules share it, and a module
// downloaded later makes another. The module download and go mod
// (the network profiles, which run no workspace code) still write the whole
// cache.

// modViewAge is how long a view nobody used is kept.
const modViewAge = 7 * 24 * time.Hour

// summedModule is a module version a sum file names: full when its tree is
// needed, not only its go.mod.
type summedModule struct {
	path, version string // escaped, as the cache lays them out
	full          bool
}

// summedModules returns the module versions the sum files among files
// name, checked, sorted and without repeats; lines that do not check are
// left out (the go command refuses them anyway).
func summedModules(files map[string][]byte) []summedModule {
	seen := map[summedModule]bool{}
	for name, b := range files {
		if base := path.Base(name); base != "go.sum" && base != "go.work.sum" {
			continue
		}
		for line := range strings.Lines(string(b)) {
			f := strings.Fields(line)
			if len(f) != 3 {
				continue
			}
			ver, goMod := strings.CutSuffix(f[1], "/go.mod")
			if module.Check(f[0], ver) != nil {
				continue
			}
			p, err1 := module.EscapePath(f[0])
			v, err2 := module.EscapeVersion(ver)
			if err1 != nil || err2 != nil {
				continue
			}
			seen[summedModule{path: p, version: v, full: !goMod}] = true
		}
	}
	var out []summedModule
	for m := range seen {
		if m.full || !seen[summedModule{path: m.path, version: m.version, full: true}] {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b summedModule) int {
		return strings.Compare(a.path+"@"+a.version, b.path+"@"+b.version)
	})
	return out
}

// ModuleView returns the view of the module cache modCache for a
// workspace whose module files are files (none: an empty view), kept
// under base, building it when no complete one exists.
func ModuleView(files map[string][]byte, modCache, base string) (string, error) {
	// What the cache holds of them is part of the key: a module downloaded
	// later makes another view.
	var mods []summedModule
	for _, m := range summedModules(files) {
		if m.full && !cached(modCache, m) {
			// A sum file names the module's tree, but go mod download
			// fetched its go.mod alone: the module graph needs that go.mod
			// (GOPROXY=off cannot fetch it), and no build needs the tree.
			m.full = false
		}
		if cached(modCache, m) {
			mods = append(mods, m)
		}
	}
	key := viewKey(modCache, mods)
	if base == "" {
		return "", errors.New("no directory for the module views")
	}
	view := filepath.Join(base, key)
	complete := view + ".complete"
	if _, err := os.Lstat(complete); err == nil {
		now := time.Now()
		os.Chtimes(complete, now, now)
		return view, nil
	}
	sweepViews(base)
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.tmp-%x", view, rnd)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", fmt.Errorf("make the module view: %w", err)
	}
	for _, m := range mods {
		if err := linkModule(modCache, tmp, m); err != nil {
			RemoveTree(tmp)
			return "", fmt.Errorf("make the module view: %w", err)
		}
	}
	// Readable by the sandbox user of a sibling container, whatever the
	// umask: the links keep the cache's own modes.
	filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	if err := os.Rename(tmp, view); err != nil {
		RemoveTree(tmp) // another core made it first
		if _, err := os.Lstat(view); err != nil {
			return "", fmt.Errorf("make the module view: %w", err)
		}
	}
	if f, err := os.OpenFile(complete, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	return view, nil
}

// viewKey names the view of the module cache modCache that holds the
// module versions mods, as summedModules sorts them: a view is built from
// one module cache and holds exactly those versions, so another cache, or
// another set, is another view.
func viewKey(modCache string, mods []summedModule) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", modCache)
	for _, m := range mods {
		fmt.Fprintf(h, "%s@%s %v\n", m.path, m.version, m.full)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// sweepViews removes views not used for modViewAge, and what an
// interrupted build left.
func sweepViews(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		stamp := filepath.Join(base, name)
		if strings.HasSuffix(name, ".complete") {
			continue
		}
		if !strings.Contains(name, ".tmp-") {
			stamp += ".complete"
		}
		if fi, err := os.Lstat(stamp); err == nil && time.Since(fi.ModTime()) < modViewAge {
			continue
		}
		RemoveTree(filepath.Join(base, name))
		os.Remove(filepath.Join(base, name+".complete"))
	}
}

// cached reports whether the module cache holds m: its go.mod, and when m
// is full its extracted tree, not half extracted.
func cached(cache string, m summedModule) bool {
	if !isFile(filepath.Join(cache, "cache", "download", m.path, "@v", m.version+".mod")) {
		return false
	}
	if !m.full {
		return true
	}
	tree := filepath.Join(cache, m.path+"@"+m.version)
	if _, err := os.Lstat(tree + ".partial"); err == nil {
		return false
	}
	fi, err := os.Lstat(tree)
	return err == nil && fi.IsDir()
}

// linkModule links a module version's files from the cache into the view:
// what it has of its download files, and its extracted tree when full.
func linkModule(cache, view string, m summedModule) error {
	dl := filepath.Join("cache", "download", m.path, "@v")
	for _, ext := range []string{".mod", ".info", ".zip", ".ziphash", ".lock"} {
		if err := linkFile(cache, view, filepath.Join(dl, m.version+ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if !m.full {
		return nil
	}
	root := filepath.Join(cache, m.path+"@"+m.version)
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(cache, p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(view, rel), 0o755)
		case d.Type().IsRegular():
			return linkFile(cache, view, rel)
		}
		return nil // no links, no devices: a module's tree has none
	})
}

// linkFile links cache/name into view/name, making its directory; a copy
// when the link cannot be made. Only a regular file is linked.
func linkFile(cache, view, name string) error {
	src, dst := filepath.Join(cache, name), filepath.Join(view, name)
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Link(src, dst); err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(dst, 0o444)
	}
	return err
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
