package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Confined code runs as the host's uid when core runs as root: a user
// namespace made by root maps its uid to host root, and the kernel checks
// file access as host root. Dropped capabilities take away the override of
// file modes, but not ownership: root still owns /etc/shadow. So everything
// that the file modes keep from other users (a file not readable by others,
// a directory others cannot enter) under the directories the sandbox sees is
// masked: files read as /dev/null (which the nodev mount refuses to open),
// directories are empty and closed.

// rootOnly lists the paths under the visible roots that a user other than
// their owner and group could not read.
type rootOnly struct {
	files []string
	dirs  []string
}

// rootOnlyScan walks the system roots once per process: the walk touches
// every file under /usr and /etc (seconds on a cold cache), and what it
// finds changes only when packages are installed. It is a cache of facts
// about the host, not state: nothing ever writes it but the once.
var rootOnlyScan = sync.OnceValue(func() rootOnly { return scanRootOnly(realRoots(systemRoots)) })

// realRoots keeps the roots that are real directories; /bin, /lib and the
// rest are links into /usr on merged-/usr systems.
func realRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if fi, err := os.Lstat(r); err == nil && fi.IsDir() {
			out = append(out, r)
		}
	}
	return out
}

// scanRootOnly walks roots and returns what others may not read.
func scanRootOnly(roots []string) rootOnly {
	var ro rootOnly
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() && p != root {
					// Unreadable even for core: hide it all.
					ro.dirs = append(ro.dirs, p)
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
			perm := fi.Mode().Perm()
			if fi.IsDir() {
				if perm&0o001 == 0 && p != root {
					ro.dirs = append(ro.dirs, p)
					return fs.SkipDir
				}
				return nil
			}
			if perm&0o004 == 0 {
				ro.files = append(ro.files, p)
			}
			return nil
		})
	}
	return ro
}

// maskArgs returns bwrap's arguments that hide the secrets of the host: the
// fixed lists and what the scan found, under the system roots and the tool
// roots.
func maskArgs(tools rootOnly) []string {
	scan := rootOnlyScan()
	files := slices.Concat(maskedFiles, scan.files, tools.files)
	dirs := slices.Concat(maskedDirs, scan.dirs, tools.dirs)
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

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p != d && within(p, d) {
			return true
		}
	}
	return false
}

// toolMasks scans the tool roots outside the system roots once per Sandbox.
func (s *Sandbox) toolMasks(roots []string) rootOnly {
	var out rootOnly
	for _, r := range roots {
		s.mu.Lock()
		ro, ok := s.toolScans[r]
		s.mu.Unlock()
		if !ok {
			if fi, err := os.Stat(r); err == nil && fi.IsDir() {
				ro = scanRootOnly([]string{r})
			}
			s.mu.Lock()
			s.toolScans[r] = ro
			s.mu.Unlock()
		}
		out.files = append(out.files, ro.files...)
		out.dirs = append(out.dirs, ro.dirs...)
	}
	return out
}
