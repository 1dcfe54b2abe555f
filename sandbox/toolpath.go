package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/limit"
)

// findTool finds a program on the host's PATH the way the sandbox can run
// it: a version manager's shim (pyenv's, asdf's: a script that needs the
// user's home, which the sandbox never shows) is passed over for the next
// one on PATH, and a rustup proxy is resolved to its default toolchain's
// own binary, whose directory the sandbox can show read-only.
func (s *Sandbox) findTool(name string) (string, error) {
	if strings.Contains(name, "/") {
		return s.lookPath(name)
	}
	for _, dir := range filepath.SplitList(s.cfg.Path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if !limit.IsExecutable(p) {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		switch {
		case filepath.Base(filepath.Dir(real)) == "shims":
			continue
		case filepath.Base(real) == "rustup":
			if t := s.rustupTool(name); t != "" {
				return t, nil
			}
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

// defaultToolchain matches rustup's settings.toml line naming the default
// toolchain.
var defaultToolchain = regexp.MustCompile(`^default_toolchain\s*=\s*"([A-Za-z0-9._-]+)"\s*$`)

// rustupTool is the path of name in the default toolchain of the user's
// rustup ($HOME/.rustup), or "" when there is none.
func (s *Sandbox) rustupTool(name string) string {
	if s.cfg.HostHome == "" {
		return ""
	}
	home := filepath.Join(s.cfg.HostHome, ".rustup")
	b, err := os.ReadFile(filepath.Join(home, "settings.toml"))
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		m := defaultToolchain.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		// "stable" names the host's stable toolchain, "stable-x86_64-…".
		matches, _ := filepath.Glob(filepath.Join(home, "toolchains", m[1]+"*", "bin", name))
		for _, p := range matches {
			if limit.IsExecutable(p) {
				return p
			}
		}
	}
	return ""
}

// commandEnv is the ecosystem's environment of a confined command with
// what its dependency step fetched. A Python command imports the
// workspace's own package as pip install -e . would let it, without
// running anything of it: the workspace, and its src directory when there
// is one, come first on PYTHONPATH, then the dependencies.
func commandEnv(tool string, opts RunOptions) []string {
	env := ecosystemEnv(tool)
	e, _ := lang.EcosystemOf(tool)
	if e.Name != "python" || opts.Workspace == "" {
		return append(env, opts.deps.Env...)
	}
	// The paths the command sees: a checkout mounted at the workspace's
	// path (MountAt) is there, not at its own.
	paths := []string{opts.inside()}
	if fi, err := os.Lstat(filepath.Join(opts.Workspace, "src")); err == nil && fi.IsDir() {
		paths = append(paths, filepath.Join(opts.inside(), "src"))
	}
	for _, kv := range opts.deps.Env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			paths = append(paths, v)
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PYTHONPATH="+strings.Join(paths, ":"))
}

// ecosystemEnv is what a confined command of an ecosystem needs besides
// the profile's environment: its caches on the fresh /tmp (pytest's too,
// so that --lf, --ff, --sw and the cache fixture work, per sandbox),
// offline, quiet, and nothing written into the workspace but what the
// tests write.
func ecosystemEnv(tool string) []string {
	e, _ := lang.EcosystemOf(tool)
	switch e.Name {
	case "python":
		return []string{"PYTHONDONTWRITEBYTECODE=1", "PYTEST_ADDOPTS=-o cache_dir=" + pytestCacheDir, "PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1"}
	case "node":
		return []string{"npm_config_cache=/tmp/npm-cache", "npm_config_offline=true", "npm_config_update_notifier=false",
			"npm_config_fund=false", "npm_config_audit=false", "NO_UPDATE_NOTIFIER=1", "CI=true"}
	case "rust":
		return []string{"CARGO_HOME=/tmp/cargo", "CARGO_NET_OFFLINE=true", "CARGO_TERM_COLOR=never", "CARGO_INCREMENTAL=0"}
	}
	return nil
}
