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
	fix := "set CORE_HOME to a directory you can write"
	dir := home
	for {
		fi, err := os.Stat(dir)
		switch {
		case err == nil && !fi.IsDir():
			if dir == home {
				return fmt.Errorf("the state directory %s (CORE_HOME) is not a directory: %s", home, fix)
			}
			return fmt.Errorf("the state directory %s (CORE_HOME) cannot be made: %s is not a directory: %s", home, dir, fix)
		case err == nil:
			if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
				if dir == home {
					return fmt.Errorf("the state directory %s (CORE_HOME) is not writable: %s", home, fix)
				}
				return fmt.Errorf("the state directory %s (CORE_HOME) cannot be made: %s is not writable: %s", home, dir, fix)
			}
			return nil
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, unix.ENOTDIR):
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil
			}
			dir = parent
		default:
			return fmt.Errorf("the state directory %s (CORE_HOME): %w: %s", home, err, fix)
		}
	}
}
