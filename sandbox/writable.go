package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/moby/moby/api/types/mount"
	"golang.org/x/sys/unix"
)

// What the dependency step installed stays as it was: every confined
// command sees it read-only (deps.go). But a repository's tools write their
// caches into it (nyc, ava, babel-loader and the rest of find-cache-dir's
// users under node_modules/.cache, Vite and Vitest under node_modules/.vite),
// and a read-only install fails them with EROFS on both sides of the
// contract. So each such directory of the install is an empty directory of
// the pristine install, made by core on the host, over which every sandbox
// gets a fresh tmpfs of its own: writable, seen by no other sandbox, gone
// with it, read by nothing of the host. A box's lives as long as the box
// (the run's commands see their own caches); the contract's checks, each
// in a sandbox of its own (NoBox), start from the pristine install.
//
// bwrap 0.8 has no overlay (--overlay came in 0.9), and a per-run copy of
// node_modules costs its size on every check (hard links would share the
// pristine's inodes, so a write would change it); a tmpfs over the
// directories tools write costs one mount each.

// nodeWritable are the directories of node_modules that tools write
// their caches in: find-cache-dir's (.cache) and Vite's and Vitest's
// (.vite).
var nodeWritable = []string{".cache", ".vite"}

// dockerTmpfsSize is the size of a writable layer under the Docker
// backend: a sibling's /tmp's (dockerTmpfs).
const dockerTmpfsSize = 2 << 30

// writableDirs makes each named directory of the installed directory host,
// when it is missing, and returns where a command sees those that are
// directories (never a link) under inside: the mount points of its
// writable layers. A directory core cannot make is left out: the command
// then sees the install as before, read-only.
func writableDirs(host, inside string, names []string) []string {
	if fi, err := os.Lstat(host); err != nil || !fi.IsDir() {
		return nil
	}
	var out []string
	for _, name := range names {
		p := filepath.Join(host, name)
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			continue
		}
		if !openToAll(p) {
			continue
		}
		out = append(out, filepath.Join(inside, name))
	}
	return out
}

// openToAll makes the directory p, never a link, 01777 (as /tmp): the
// mode of the mount point is the mode of the layer over it under the
// Docker backend, whose engine copies it up into the tmpfs whatever mode
// the mount asks for, and the sandbox user is not root there. The
// directory itself is never written: it only holds the layer's place.
func openToAll(p string) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.Fchmod(fd, 0o1777) == nil
}

// writableArgs are bwrap's arguments for the writable layers at dirs:
// a tmpfs each, of at most size bytes (0: unbounded), after the binds
// that hold their mount points.
func writableArgs(dirs []string, size int64) []string {
	var a []string
	for _, d := range dirs {
		if size > 0 {
			a = append(a, "--size", strconv.FormatInt(size, 10))
		}
		a = append(a, "--tmpfs", d)
	}
	return a
}

// writableMounts are the Docker backend's writable layers at dirs: a
// tmpfs each, of the size of a sibling's /tmp, that the sandbox user may
// write. The engine mounts them after the binds that hold their mount
// points (it orders mounts by depth).
func writableMounts(dirs []string) []mount.Mount {
	var out []mount.Mount
	for _, d := range dirs {
		out = append(out, mount.Mount{Type: mount.TypeTmpfs, Target: d,
			TmpfsOptions: &mount.TmpfsOptions{SizeBytes: dockerTmpfsSize, Mode: 0o777}})
	}
	return out
}

// sameMount reports whether two mounts are the same, the options of a
// tmpfs compared by value.
func sameMount(a, b mount.Mount) bool {
	ta, tb := a.TmpfsOptions, b.TmpfsOptions
	a.TmpfsOptions, b.TmpfsOptions = nil, nil
	if a != b || (ta == nil) != (tb == nil) {
		return false
	}
	return ta == nil || (ta.SizeBytes == tb.SizeBytes && ta.Mode == tb.Mode && len(ta.Options) == 0 && len(tb.Options) == 0)
}

// pytestCacheDir is where pytest keeps its cache (.pytest_cache) inside:
// on the sandbox's /tmp, so that it is the run's in a box, fresh for a
// check of its own, and never in the workspace (where it could land).
const pytestCacheDir = "/tmp/pytest-cache"
