package deps

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The directories of an install that tools write their caches in, made
// empty in the pristine install, never through a link: sandbox mounts a
// tmpfs of each sandbox's own over each (sandbox/writable.go says why).

// nodeWritable are the directories of node_modules that tools write
// their caches in: find-cache-dir's (.cache) and Vite's and Vitest's
// (.vite).
var nodeWritable = []string{".cache", ".vite"}

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
