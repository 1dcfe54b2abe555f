package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks is how many symlinks one resolution follows before it gives up,
// as the kernel's own limit (40) does.
const maxLinks = 40

// Workspace confines every path to one directory.
type Workspace struct {
	root string // absolute, symlinks resolved
}

// NewWorkspace returns a workspace rooted at root, which must be an
// existing directory other than /.
func NewWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a directory", root)
	}
	if real == string(filepath.Separator) {
		return nil, errors.New("the workspace cannot be the root directory")
	}
	return &Workspace{root: real}, nil
}

// Root returns the workspace's absolute path, symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// PathError is a path the workspace refuses. The model can fix it.
type PathError struct {
	Path, Reason string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("path %q refused: %s", e.Path, e.Reason)
}

// Reasons a path is refused.
const (
	reasonLeaves  = "it leaves the workspace"
	reasonGit     = "it lies inside .git, which the tools never touch"
	reasonNUL     = "it holds a NUL byte"
	reasonTooLong = "it is too long"
)

// Resolve turns a model-given path (relative to the root, or absolute
// inside it) into an absolute host path and a clean slash-separated
// relative path ("." for the root). It refuses, with a *PathError, a path
// that escapes the root, lies inside .git (any component equal to ".git",
// case-insensitively, at any depth), or resolves through a symlink (at any
// component, including the final one and a dangling one) to outside the
// root or into .git. The empty path and "." are the root itself.
//
// The returned abs holds no ".." and is the path to operate on: every
// symlink along it was checked.
func (w *Workspace) Resolve(path string) (abs, rel string, err error) {
	if strings.IndexByte(path, 0) >= 0 {
		return "", "", &PathError{Path: path, Reason: reasonNUL}
	}
	p := filepath.FromSlash(path)
	if p == "" {
		p = "."
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(w.root, filepath.Clean(p))
		if err != nil {
			return "", "", &PathError{Path: path, Reason: reasonLeaves}
		}
		p = r
	}
	p = filepath.Clean(p)
	if p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) || filepath.IsAbs(p) {
		return "", "", &PathError{Path: path, Reason: reasonLeaves}
	}
	if inGit(p) {
		return "", "", &PathError{Path: path, Reason: reasonGit}
	}
	abs = filepath.Join(w.root, p)
	if err := w.checkLinks(path, p); err != nil {
		return "", "", err
	}
	return abs, filepath.ToSlash(p), nil
}

// checkLinks walks the clean relative path p component by component and,
// at every component that is a symlink, checks where it leads. The walk
// stops at the first component that does not exist: the system cannot go
// past it either.
func (w *Workspace) checkLinks(path, p string) error {
	if p == "." {
		return nil
	}
	cur := w.root
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return nil
		case errors.Is(err, syscall.ENAMETOOLONG):
			return &PathError{Path: path, Reason: reasonTooLong}
		default:
			return &PathError{Path: path, Reason: "it cannot be checked: " + errText(err)}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		real, err := evalLenient(w.root, cur)
		if errors.Is(err, errOutside) {
			return &PathError{Path: path, Reason: fmt.Sprintf("the symlink %s leads outside the workspace", w.relName(cur))}
		}
		if err != nil {
			return &PathError{Path: path, Reason: fmt.Sprintf("the symlink %s cannot be followed: %s", w.relName(cur), errText(err))}
		}
		if !within(w.root, real) {
			return &PathError{Path: path, Reason: fmt.Sprintf("the symlink %s leads outside the workspace", w.relName(cur))}
		}
		if r, _ := filepath.Rel(w.root, real); inGit(r) {
			return &PathError{Path: path, Reason: fmt.Sprintf("the symlink %s leads into .git", w.relName(cur))}
		}
	}
	return nil
}

// relName names a host path inside the root as the model knows it.
func (w *Workspace) relName(abs string) string {
	r, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// errOutside is a resolution that passed through a symlink outside the
// root: whoever controls that symlink controls where the path leads.
var errOutside = errors.New("it passes through a symlink outside the workspace")

// evalLenient resolves every symlink along the absolute path p, as the
// system would, like filepath.EvalSymlinks; unlike it, a path whose tail
// does not exist (a dangling symlink, a file not yet written) resolves to
// its existing prefix, resolved, joined with the rest. Meeting a symlink
// outside root is errOutside, even when it leads back in.
func evalLenient(root, p string) (string, error) {
	rest := components(p)
	resolved := string(filepath.Separator)
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return filepath.Join(append([]string{next}, rest...)...), nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if !within(root, next) {
			return "", errOutside
		}
		if links++; links > maxLinks {
			return "", syscall.ELOOP
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		rest = append(components(target), rest...)
	}
	return resolved, nil
}

// components splits a path into its non-empty components.
func components(p string) []string {
	var cs []string
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		if c != "" {
			cs = append(cs, c)
		}
	}
	return cs
}

// within reports whether p is root or lies under it. Both are clean and
// absolute.
func within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// inGit reports whether a clean relative path has a component equal to
// .git, in any case.
func inGit(rel string) bool {
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if strings.EqualFold(c, ".git") {
			return true
		}
	}
	return false
}
