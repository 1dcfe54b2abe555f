package sandbox

import (
	"context"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"strings"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/manifest"
)

// The target's Go. A workspace whose go.mod asks for a newer Go than the
// one on PATH (its go or toolchain line) gets that toolchain from the module
// proxy, on the host, in the download step: GOTOOLCHAIN=go1.X.Y go version
// fetches golang.org/toolchain into the module cache, which the sandbox sees
// read-only. Commands then run that toolchain's go: on the host by its path,
// confined with its bin first on PATH, with GOTOOLCHAIN=local as always, so
// no confined command ever needs the network to switch.

// fetchToolchain makes sure the toolchain the workspace's go.mod asks for is
// in the module cache, fetching it on the host when it is not, and returns
// its bin directory ("" when the go on PATH will do). On failure it returns
// the fetch's result for the caller to show, and false.
func (s *Sandbox) fetchToolchain(ctx context.Context, ws string) (string, Result, bool) {
	gomod, err := manifest.ReadWorkspaceFile(ws, "go.mod", manifest.MaxModFileSize)
	if err != nil || s.cfg.Home == "" {
		return "", Result{}, true // no readable go.mod: the download step says why
	}
	local, err := s.localGoVersion(ctx)
	if err != nil {
		return "", Result{}, true // no go here: the command will say so
	}
	want := deps.WantedToolchain(gomod, local)
	if want == "" {
		return "", Result{}, true
	}
	modCache, err := s.modCache()
	if err != nil {
		return "", Result{ExitCode: 1, Output: err.Error()}, false
	}
	bin := deps.ToolchainBin(modCache, want)
	if limit.IsExecutable(filepath.Join(bin, "go")) {
		return bin, Result{}, true
	}
	goPath, err := s.lookPath("go")
	if err != nil {
		return "", Result{}, true
	}
	env := append([]string{
		"PATH=" + s.cfg.Path,
		"HOME=" + orDefault(s.cfg.HostHome, os.TempDir()),
		"GOTOOLCHAIN=" + want,
		"GOMODCACHE=" + modCache,
		"GOFLAGS=-modcacherw",
		"GOTELEMETRY=off",
	}, s.cfg.HostEnv...)
	scratch, err := os.MkdirTemp(modCache, ".toolchain-")
	if err != nil {
		return "", Result{ExitCode: 1, Output: err.Error()}, false
	}
	defer os.RemoveAll(scratch)
	r, err := execute(ctx, goPath, []string{"version"}, env, RunOptions{Workspace: scratch}, nil)
	if err != nil || r.ExitCode != 0 || !limit.IsExecutable(filepath.Join(bin, "go")) {
		if err != nil {
			r.Output += err.Error()
		}
		r.Argv = []string{"go", "version"}
		r.Output = fmt.Sprintf("go.mod asks for %s (this machine has %s); fetching it through the module proxy (GOTOOLCHAIN=%s go version, run by core on the host) failed:\n%s", want, local, want, r.Output)
		if r.ExitCode == 0 {
			r.ExitCode = 1
		}
		return "", r, false
	}
	return bin, Result{}, true
}

// localGoVersion is what the go on PATH says it is, e.g. "go1.26.8".
func (s *Sandbox) localGoVersion(ctx context.Context) (string, error) {
	goPath, err := s.lookPath("go")
	if err != nil {
		return "", err
	}
	r, err := execute(ctx, goPath, []string{"env", "GOVERSION"}, []string{"PATH=" + s.cfg.Path, "GOTOOLCHAIN=local", "HOME=" + os.TempDir()}, RunOptions{Workspace: os.TempDir()}, nil)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(r.Output)
	if r.ExitCode != 0 || !version.IsValid(v) {
		return "", fmt.Errorf("go env GOVERSION said %q", v)
	}
	return v, nil
}

// fetchedToolchain returns the bin directory of the toolchain the
// workspace's go.mod asks for when an earlier download step fetched it into
// the module cache, else "".
func (s *Sandbox) fetchedToolchain(ws string) string {
	if s.cfg.Home == "" {
		return ""
	}
	gomod, err := manifest.ReadWorkspaceFile(ws, "go.mod", manifest.MaxModFileSize)
	if err != nil {
		return ""
	}
	want := deps.WantedToolchain(gomod, "go1")
	if want == "" {
		return ""
	}
	modCache, err := s.modCache()
	if err != nil {
		return ""
	}
	bin := deps.ToolchainBin(modCache, want)
	if !limit.IsExecutable(filepath.Join(bin, "go")) {
		return ""
	}
	return bin
}
