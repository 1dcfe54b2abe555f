package gocache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// UserEnvNames are the variables that say where the user's Go caches
// are; `go env` is asked with them as the user's shell has them.
func UserEnvNames() []string {
	return []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOENV", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"}
}

// UserCaches are the user's Go caches as `go env` names them: the module
// cache, which the module download fills and confined commands see
// read-only, and the build cache, which confined builds read through core
// (gocache.go) and never write.
type UserCaches struct {
	Mod   string // GOMODCACHE; "" when not used
	Build string // GOCACHE; "" when not used
	Why   string // why they are not used, when they are not
}

// FindUser asks the host's go (goBin), run with the host's PATH, the
// user's home hostHome and the Go variables goEnv, where the user's caches
// are, and keeps those the sandbox may see (Shareable: not holding
// hostHome or core's state directory home).
func FindUser(goBin, path, hostHome string, goEnv []string, home string) UserCaches {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "env", "-json", "GOMODCACHE", "GOCACHE")
	cmd.Dir = "/" // never a workspace: its go.mod could switch toolchains
	cmd.Env = append([]string{"PATH=" + path, "HOME=" + hostHome, "GOTOOLCHAIN=local", "GOTELEMETRY=off"}, goEnv...)
	out, err := cmd.Output()
	if err != nil {
		return UserCaches{Why: fmt.Sprintf("go env: %v", err)}
	}
	var env struct{ GOMODCACHE, GOCACHE string }
	if err := json.Unmarshal(out, &env); err != nil {
		return UserCaches{Why: fmt.Sprintf("go env: %v", err)}
	}
	var u UserCaches
	if err := Shareable(env.GOMODCACHE, hostHome, home); err != nil {
		return UserCaches{Why: fmt.Sprintf("the module cache %s: %v", env.GOMODCACHE, err)}
	}
	if err := os.MkdirAll(env.GOMODCACHE, 0o755); err != nil {
		return UserCaches{Why: fmt.Sprintf("the module cache: %v", err)}
	}
	u.Mod = filepath.Clean(env.GOMODCACHE)
	if err := Shareable(env.GOCACHE, hostHome, home); err == nil {
		if fi, err := os.Stat(env.GOCACHE); err == nil && fi.IsDir() {
			u.Build = filepath.Clean(env.GOCACHE)
		}
	}
	return u
}

// Shareable checks a cache directory of the user's before the sandbox
// sees it: an absolute path that does not hold the user's home (hostHome)
// or $CORE_HOME (home).
func Shareable(dir, hostHome, home string) error {
	if dir == "" || dir == "off" || !filepath.IsAbs(dir) {
		return errors.New("not an absolute path")
	}
	for _, private := range []string{hostHome, home, "/"} {
		if private != "" && within(private, filepath.Clean(dir)) {
			return fmt.Errorf("it holds %s, which the sandbox must not see", private)
		}
	}
	return nil
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
