package sandbox

import (
	"path/filepath"

	"github.com/coreagent/core/sandbox/gocache"
)

// userCaches finds the user's caches once per Sandbox.
func (s *Sandbox) userCaches() gocache.UserCaches {
	s.userOnce.Do(func() { s.user = s.findUserCaches() })
	return s.user
}

func (s *Sandbox) findUserCaches() gocache.UserCaches {
	if !s.cfg.UserCaches {
		return gocache.UserCaches{Why: "CORE_SANDBOX_USER_CACHES=off"}
	}
	goBin, err := s.lookPath("go")
	if err != nil {
		return gocache.UserCaches{Why: "no go on PATH"}
	}
	return gocache.FindUser(goBin, s.cfg.Path, s.cfg.HostHome, s.cfg.GoEnv, s.cfg.Home)
}

// Caches says, a line each, where confined Go commands find their module
// and build caches under the backend.
func (s *Sandbox) Caches(backend string) []string {
	var lines []string
	u := s.userCaches()
	switch mod, err := s.modCache(); {
	case err != nil:
		lines = append(lines, "module cache: "+err.Error())
	case mod == u.Mod && s.cfg.ModCache == "":
		lines = append(lines, "module cache: "+mod+" (yours: the confined download fills it, every other confined command reads it read-only)")
	case mod != "":
		lines = append(lines, "module cache: "+mod+" (core's own"+because(u.Why)+")")
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
	case u.Build != "":
		lines = append(lines, "build cache: writes only the run's own under "+runs+"; reads it, then "+shared+", then yours ("+u.Build+") through core")
	default:
		lines = append(lines, "build cache: writes only the run's own under "+runs+"; reads it, then "+shared+because(u.Why))
	}
	return lines
}

func because(why string) string {
	if why == "" {
		return ""
	}
	return ": " + why
}
