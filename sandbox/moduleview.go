package sandbox

import (
	"os"
	"path/filepath"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/gocache"
)

// moduleView returns the view of the module cache modCache for the
// workspace ws (gocache/modview.go), building it when no complete one
// exists. A workspace without module files, or whose module files do not
// read, gets an empty view.
func (s *Sandbox) moduleView(ws, modCache string) (string, error) {
	files, err := deps.GoModuleFiles(ws)
	if err != nil {
		files = nil // fail closed: nothing of the cache
	}
	return gocache.ModuleView(files, modCache, s.viewsDir(modCache))
}

// viewsDir is where the views of modCache are kept: beside the user's
// cache when modCache is theirs and on the same file system (so that
// links work and every $CORE_HOME shares them), else under $CORE_HOME.
func (s *Sandbox) viewsDir(modCache string) string {
	dirs := []string{filepath.Join(s.cfg.Home, "cache")}
	if s.cfg.ModCache == "" && modCache == s.userCaches().Mod {
		dirs = append([]string{s.userCacheDir()}, dirs...)
	}
	for _, dir := range dirs {
		if dir == "" || dir == "cache" {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, "gomod-views"), 0o700); err == nil && gocache.SameDevice(modCache, dir) {
			return filepath.Join(dir, "gomod-views")
		}
	}
	if s.cfg.Home == "" {
		return ""
	}
	return filepath.Join(s.cfg.Home, "cache", "gomod-views")
}
