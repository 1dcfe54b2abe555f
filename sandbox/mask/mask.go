// Package mask works out what confined code may not read of the host when
// core runs as root, and the bwrap arguments that hide it (Args); the walk
// behind the masks is kept in memory and on disk (Cache).
package mask

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Confined code runs as the host's uid when core runs as root: a user
// namespace made by root maps its uid to host root, and the kernel checks
// file access as host root. Dropped capabilities take away the override of
// file modes, but not ownership: root still owns /etc/shadow. So everything
// under the directories the sandbox sees that root may read by its
// ownership and groups but others may not (a file not readable by others, a
// directory others cannot enter) is masked: files read as /dev/null (which
// the nodev mount refuses to open), directories are empty and closed.
//
// What root cannot read by the file modes either (a 0640 file of postgres,
// a 0700 directory of polkitd) needs no mask: without capabilities the
// kernel refuses it to confined code as it would to any other user. A POSIX
// ACL may grant more than the mode shows, so a file that has one is masked
// whenever others may not read it.

// RootOnly lists the paths under the visible roots that confined code could
// read only through core's own uid and groups.
type RootOnly struct {
	Files []string `json:"files"`
	Dirs  []string `json:"dirs"`
}

// Cred is who confined code is to the kernel: core's uid and groups.
type Cred struct {
	uid    uint32
	groups []uint32 // the effective gid and the supplementary groups
}

func CurrentCred() Cred {
	c := Cred{uid: uint32(os.Geteuid()), groups: []uint32{uint32(os.Getegid())}}
	if gs, err := os.Getgroups(); err == nil {
		for _, g := range gs {
			if !slices.Contains(c.groups, uint32(g)) {
				c.groups = append(c.groups, uint32(g))
			}
		}
	}
	return c
}

// Root reports whether c is root's: only then do the masks hide anything
// (see the sandbox's rootOnly).
func (c Cred) Root() bool { return c.uid == 0 }

// needsMask reports whether confined code, as c, may do by the file modes
// what others may not: read a file (bit 4) or enter a directory (bit 1).
func (c Cred) needsMask(p string, fi fs.FileInfo, bit fs.FileMode) bool {
	perm := fi.Mode().Perm()
	if perm&bit != 0 {
		return false // others may: nothing to hide
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	switch {
	case st.Uid == c.uid:
		return perm&(bit<<6) != 0
	case slices.Contains(c.groups, st.Gid) && perm&(bit<<3) != 0:
		return true
	}
	return hasACL(p)
}

// hasACL reports whether p carries a POSIX access ACL; when it cannot tell,
// it says yes.
func hasACL(p string) bool {
	_, err := unix.Lgetxattr(p, "system.posix_acl_access", nil)
	return !errors.Is(err, unix.ENODATA) && !errors.Is(err, unix.ENOTSUP)
}

// RealRoots keeps the roots that are real directories; /bin, /lib and the
// rest are links into /usr on merged-/usr systems.
func RealRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if fi, err := os.Lstat(r); err == nil && fi.IsDir() {
			out = append(out, r)
		}
	}
	return out
}

// scanRootOnly walks roots and returns what c may read there and others may
// not. A directory that holds nothing but such entries is masked whole: one
// mount instead of one per file, and nothing readable is lost.
func scanRootOnly(roots []string, c Cred) RootOnly {
	var ro RootOnly
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() && p != root {
					// Unreadable even for core: hide it all.
					ro.Dirs = append(ro.Dirs, p)
				}
				return fs.SkipDir
			}
			if d.Type()&fs.ModeSymlink != 0 {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			if fi.IsDir() {
				if p == root {
					return nil
				}
				if fi.Mode().Perm()&0o001 == 0 {
					if c.needsMask(p, fi, 0o001) {
						ro.Dirs = append(ro.Dirs, p)
					}
					return fs.SkipDir // closed to confined code, masked or not
				}
				return nil
			}
			if c.needsMask(p, fi, 0o004) {
				ro.Files = append(ro.Files, p)
			}
			return nil
		})
	}
	return collapse(ro, roots)
}

// collapse replaces the masked entries of a directory by the directory
// itself when they are all it holds, deepest directories first, so that a
// tree of secrets takes one mount.
func collapse(ro RootOnly, roots []string) RootOnly {
	masked := map[string]bool{}
	for _, p := range slices.Concat(ro.Files, ro.Dirs) {
		masked[p] = true
	}
	depth := func(p string) int { return strings.Count(p, string(filepath.Separator)) }
	for changed := true; changed; {
		changed = false
		var parents []string
		for p := range masked {
			if dir := filepath.Dir(p); !slices.Contains(parents, dir) {
				parents = append(parents, dir)
			}
		}
		slices.SortFunc(parents, func(a, b string) int { return depth(b) - depth(a) })
		for _, dir := range parents {
			if slices.Contains(roots, dir) || !underAny(dir, roots) || masked[dir] {
				continue
			}
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) == 0 || !allMasked(dir, entries, masked) {
				continue
			}
			masked[dir] = true
			for _, e := range entries {
				delete(masked, filepath.Join(dir, e.Name()))
			}
			changed = true
		}
	}
	var out RootOnly
	for p := range masked {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			out.Dirs = append(out.Dirs, p)
		} else {
			out.Files = append(out.Files, p)
		}
	}
	slices.Sort(out.Files)
	slices.Sort(out.Dirs)
	return out
}

// Args returns bwrap's arguments that hide the secrets of the host: the
// fixed lists and what the scans found, under the system roots and the tool
// roots. Each mask is checked against the host as it is now: a file removed
// since the scan is left out (bwrap would fail on it).
func Args(scans ...RootOnly) []string {
	files, dirs := maskedFiles, maskedDirs
	for _, s := range scans {
		files = slices.Concat(files, s.Files)
		dirs = slices.Concat(dirs, s.Dirs)
	}
	var a []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			// One mount: an empty tmpfs of mode 0000, which confined code,
			// without capabilities, can neither list nor write.
			a = append(a, "--perms", "0000", "--tmpfs", d)
		}
	}
	for _, f := range files {
		if seen[f] || underAny(f, dirs) {
			continue
		}
		seen[f] = true
		if fi, err := os.Lstat(f); err == nil && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
			a = append(a, "--ro-bind", os.DevNull, f)
		}
	}
	return a
}

func allMasked(dir string, entries []fs.DirEntry, masked map[string]bool) bool {
	for _, e := range entries {
		if !masked[filepath.Join(dir, e.Name())] {
			return false
		}
	}
	return true
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p != d && within(p, d) {
			return true
		}
	}
	return false
}
