package mask

import (
	"path/filepath"
	"strings"
)

// maskedFiles hold secrets of the host; inside they read as empty.
var maskedFiles = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers"}

// maskedDirs hold secrets of the host; inside they are empty.
var maskedDirs = []string{"/etc/ssh", "/etc/sudoers.d"}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
