package sandbox

import (
	"strconv"

	"github.com/moby/moby/api/types/mount"
)

// What the dependency step installed stays as it was: every confined
// command sees it read-only (sandbox/deps). But a repository's tools write their
// caches into it (nyc, ava, babel-loader and the rest of find-cache-dir's
// users under node_modules/.cache, Vite and Vitest under
// node_modules/.vite), and a read-only install fails them with EROFS on
// both sides of the contract. So each such directory of the install is an
// empty directory of the pristine install, made by core on the host
// (sandbox/deps/writable.go), over which every sandbox gets a fresh tmpfs
// of its own: writable, seen by no other sandbox, gone with it, read by
// nothing of the host. A box's lives as long as the box (the run's commands
// see their own caches); the contract's checks, each in a sandbox of its
// own (NoBox), start from the pristine install.
//
// bwrap 0.8 has no overlay (--overlay came in 0.9), and a per-run copy of
// node_modules costs its size on every check (hard links would share the
// pristine's inodes, so a write would change it); a tmpfs over the
// directories tools write costs one mount each.

// dockerTmpfsSize is the size of a writable layer under the Docker
// backend: a sibling's /tmp's (dockerTmpfs).
const dockerTmpfsSize = 2 << 30

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
