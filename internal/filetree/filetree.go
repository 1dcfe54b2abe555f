// Package filetree removes and measures directory trees that confined
// code may have written: never following a link, and giving back to
// their owner the directories such code made unwritable or unreadable.
package filetree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Remove deletes dir and everything under it without following links.
// When plain removal is refused, the directories under dir are made the
// owner's again (0700, again without following links) and removal is
// tried once more, so an unprivileged user removes what a box left.
func Remove(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700) // WalkDir reports links as links: Chmod never meets one here
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// Size adds up the sizes of the regular files under dir, links not
// followed.
func Size(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			n += fi.Size()
		}
		return nil
	})
	return n
}
