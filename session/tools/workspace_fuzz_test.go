package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve checks Resolve's promise for any path: it never panics, and a
// path it accepts, once the symlinks of its longest existing prefix are
// resolved, lies inside the root and outside root/.git.
func FuzzResolve(f *testing.F) {
	root := realDir(f)
	outside := realDir(f)
	resolveFixture(f, root, outside)
	ws, err := NewWorkspace(root)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"", ".", "a.txt", "sub/b.txt", "..", "../x", "a/../../x", "/etc/passwd", root + "/a.txt",
		".git", ".git/config", "sub/.git/x", ".GIT/config", "link-etc", "link-out/secret",
		"link-git/config", "dangling-out", "dangling-git", "link-in", "link-sub/b.txt", "loop/x",
		"link-dotdot/x", "link-via-out/b.txt", "a\x00b", "link-sub/../link-git", "sub/deep/../../link-out",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, path string) {
		abs, rel, err := ws.Resolve(path)
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("Resolve(%q): error %v is not a *PathError", path, err)
			}
			return
		}
		if want := filepath.Join(root, filepath.FromSlash(rel)); abs != want {
			t.Fatalf("Resolve(%q) = %q, %q: abs is not root joined with rel (%q)", path, abs, rel, want)
		}
		real, ok := evalPrefix(abs, 0)
		if ok && !insideNotGit(root, real) {
			t.Fatalf("Resolve(%q) = %q, which resolves to %q: outside the root or inside .git", path, abs, real)
		}
	})
}

// evalPrefix resolves the symlinks of the longest existing prefix of p with
// filepath.EvalSymlinks and joins the rest. Where the walk backs off past a
// dangling symlink, it follows the symlink's target the same way: that is
// where a write through it would land. ok is false for a symlink loop,
// which the system refuses to follow anyway.
func evalPrefix(p string, depth int) (real string, ok bool) {
	if depth > 40 {
		return "", false
	}
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), true
		}
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return "", false
			}
			if !filepath.IsAbs(target) {
				dir, err := filepath.EvalSymlinks(filepath.Dir(p))
				if err != nil {
					return "", false
				}
				target = filepath.Join(dir, target)
			}
			real, ok := evalPrefix(target, depth+1)
			return filepath.Join(real, rest), ok
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), true
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// insideNotGit reports whether p lies in root (or is root) and not in
// root/.git, in any case.
func insideNotGit(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if strings.EqualFold(c, ".git") {
			return false
		}
	}
	return true
}
