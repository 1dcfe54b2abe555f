package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/coreagent/core/sandbox/gocache"
)

// userGoEnvNames are the variables that say where the user's Go caches
// are; `go env` is asked with them as the user's shell has them.
func userGoEnvNames() []string {
	return []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOENV", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"}
}

// userCaches are the user's Go caches as `go env` names them: the module
// cache, which the module download fills and confined commands see
// read-only, and the build cache, which confined builds read through core
// (gocache/gocache.go) and never write.
type userCaches struct {
	mod   string // GOMODCACHE; "" when not used
	build string // GOCACHE; "" when not used
	why   string // why they are not used, when they are not
}

// userCaches finds the user's caches once per Sandbox.
func (s *Sandbox) userCaches() userCaches {
	s.userOnce.Do(func() { s.user = s.findUserCaches() })
	return s.user
}

func (s *Sandbox) findUserCaches() userCaches {
	if !s.cfg.UserCaches {
		return userCaches{why: "CORE_SANDBOX_USER_CACHES=off"}
	}
	goBin, err := s.lookPath("go")
	if err != nil {
		return userCaches{why: "no go on PATH"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "env", "-json", "GOMODCACHE", "GOCACHE")
	cmd.Dir = "/" // never a workspace: its go.mod could switch toolchains
	cmd.Env = append([]string{"PATH=" + s.cfg.Path, "HOME=" + s.cfg.HostHome, "GOTOOLCHAIN=local", "GOTELEMETRY=off"}, s.cfg.GoEnv...)
	out, err := cmd.Output()
	if err != nil {
		return userCaches{why: fmt.Sprintf("go env: %v", err)}
	}
	var env struct{ GOMODCACHE, GOCACHE string }
	if err := json.Unmarshal(out, &env); err != nil {
		return userCaches{why: fmt.Sprintf("go env: %v", err)}
	}
	var u userCaches
	if err := s.shareable(env.GOMODCACHE); err != nil {
		return userCaches{why: fmt.Sprintf("the module cache %s: %v", env.GOMODCACHE, err)}
	}
	if err := os.MkdirAll(env.GOMODCACHE, 0o755); err != nil {
		return userCaches{why: fmt.Sprintf("the module cache: %v", err)}
	}
	u.mod = filepath.Clean(env.GOMODCACHE)
	if err := s.shareable(env.GOCACHE); err == nil {
		if fi, err := os.Stat(env.GOCACHE); err == nil && fi.IsDir() {
			u.build = filepath.Clean(env.GOCACHE)
		}
	}
	return u
}

// shareable checks a cache directory of the user's before the sandbox
// sees it: an absolute path that does not hold the user's home or
// $CORE_HOME.
func (s *Sandbox) shareable(dir string) error {
	if dir == "" || dir == "off" || !filepath.IsAbs(dir) {
		return errors.New("not an absolute path")
	}
	for _, private := range []string{s.cfg.HostHome, s.cfg.Home, "/"} {
		if private != "" && within(private, filepath.Clean(dir)) {
			return fmt.Errorf("it holds %s, which the sandbox must not see", private)
		}
	}
	return nil
}

// Caches says, a line each, where confined Go commands find their module
// and build caches under the backend.
func (s *Sandbox) Caches(backend string) []string {
	var lines []string
	u := s.userCaches()
	switch mod, err := s.modCache(); {
	case err != nil:
		lines = append(lines, "module cache: "+err.Error())
	case mod == u.mod && s.cfg.ModCache == "":
		lines = append(lines, "module cache: "+mod+" (yours: the confined download fills it, every other confined command reads it read-only)")
	case mod != "":
		lines = append(lines, "module cache: "+mod+" (core's own"+because(u.why)+")")
	}
	if s.cfg.Home == "" {
		return lines
	}
	runs := filepath.Join(s.cfg.Home, "cache", "go-build-run")
	shared := "no shared layer: no repository named"
	if dir := gocache.SharedDir(s.cfg.Home, s.cfg.Repo); dir != "" {
		shared = "the repository's shared layer " + dir + " read-only, which core fills on the host from commands that run no workspace code"
	}
	switch {
	case backend != BackendBwrap:
		lines = append(lines, "build cache: the run's own under "+runs+" alone (sibling containers read no other build cache)")
	case s.cfg.CacheProg == "":
		lines = append(lines, "build cache: the run's own under "+runs+" alone (no core executable to serve more)")
	case u.build != "":
		lines = append(lines, "build cache: writes only the run's own under "+runs+"; reads it, then "+shared+", then yours ("+u.build+") through core")
	default:
		lines = append(lines, "build cache: writes only the run's own under "+runs+"; reads it, then "+shared+because(u.why))
	}
	return lines
}

func because(why string) string {
	if why == "" {
		return ""
	}
	return ": " + why
}
