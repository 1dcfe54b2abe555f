package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// CheckHome says whether the state directory can be used, without creating
// it: an existing home must be a directory core can write; a missing one
// needs its nearest existing parent to be one. Checked before the sandbox
// is probed, so an unusable CORE_HOME is named as such and not blamed on
// the sandbox, which keeps its caches there.
func CheckHome(home string) error {
	unusable := func(why string, args ...any) error {
		return fmt.Errorf("the state directory %s (CORE_HOME) cannot be used: %s; set CORE_HOME to a writable directory", home, fmt.Sprintf(why, args...))
	}
	dir := home
	for {
		fi, err := os.Stat(dir)
		switch {
		case err == nil && !fi.IsDir():
			return unusable("%s is a file, not a directory", dir)
		case err == nil:
			if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
				return unusable("%s is not writable", dir)
			}
			return nil
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, unix.ENOTDIR):
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil
			}
			dir = parent
		default:
			return unusable("%v", err)
		}
	}
}
