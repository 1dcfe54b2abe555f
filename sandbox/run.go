package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/gate"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/output"
)

// RunHost runs argv on the host, unconfined, with a scrubbed environment:
// only what the tools need and the module proxy settings, never a token. It
// is for commands that run no workspace code (go mod) and for commands a
// human approved; everything else goes through Verify or Run.
func (s *Sandbox) RunHost(ctx context.Context, argv []string, opts RunOptions) (Result, error) {
	mod, err := s.modCache()
	if err != nil {
		return Result{}, err
	}
	env := []string{
		"PATH=" + s.cfg.Path,
		"LANG=" + orDefault(s.cfg.Lang, "C.UTF-8"),
		"GOTOOLCHAIN=local",
		"GOFLAGS=" + modFlags(s.cfg.ModCache == "" && mod != "" && mod == s.userCaches().Mod) + "-buildvcs=false",
		"GOTELEMETRY=off",
	}
	if s.cfg.HostHome != "" {
		env = append(env, "HOME="+s.cfg.HostHome)
	}
	if mod != "" {
		env = append(env, "GOMODCACHE="+mod)
	}
	if u := s.userCaches(); u.Build != "" {
		env = append(env, "GOCACHE="+u.Build) // a host build: the user's cache, as their go would
	} else if s.cfg.Home != "" {
		build, err := s.cacheDir("go-build")
		if err != nil {
			return Result{}, err
		}
		env = append(env, "GOCACHE="+build)
	}
	env = append(env, s.cfg.HostEnv...)
	path, err := s.lookPath(argv[0])
	if err != nil {
		return Result{Argv: argv, ExitCode: 127, Output: fmt.Sprintf("%s: command not found\n", argv[0])}, nil
	}
	if argv[0] == "go" { // the target's Go (toolchain.go)
		bin, r, ok := s.fetchToolchain(ctx, opts.Workspace)
		if !ok {
			return r, nil
		}
		if bin != "" {
			path = filepath.Join(bin, "go")
		}
	}
	r, err := execute(ctx, path, argv[1:], env, opts, nil)
	r.Argv = argv
	return r, err
}

// execute runs one program in its own process group and waits for it. The
// timeout, or ctx ending, kills the whole group. A non-zero exit is a
// result; only a failure to start, or ctx ending, is an error.
//
// A launch, when given, holds the command at a gate after it started: its
// hold runs (cgroups, rlimits) before the command proceeds, and its watch
// runs alongside, able to stop the command.
func execute(ctx context.Context, path string, args, env []string, opts RunOptions, l *gate.Launch) (Result, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := output.NewCapped(opts.OutputLimit)
	if l != nil {
		path, args = l.Gate(path, args)
	}
	c := exec.CommandContext(runCtx, path, args...)
	c.Env = env
	c.Dir = opts.Workspace
	c.Stdout, c.Stderr = out, out
	if opts.Progress != nil {
		w := io.MultiWriter(out, opts.Progress)
		c.Stdout, c.Stderr = w, w
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = limit.WaitDelay
	if l != nil {
		c.ExtraFiles = l.Files()
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		if l != nil {
			l.Close()
		}
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", path, err)
	}
	clk := boxagent.StartClock(c.Process.Pid, "/proc", opts.Timeout, opts.BuildCeiling, cancel)
	var stop func()
	if l != nil {
		var err error
		if stop, err = l.Release(runCtx, c.Process.Pid, opts.Workspace); err != nil {
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			_ = c.Wait()
			clk.Stop()
			return Result{ExitCode: -1}, err
		}
	}
	err := c.Wait()
	timing := clk.Stop()
	if stop != nil {
		stop()
	}
	// Whatever the leader did, leave nothing of its group behind.
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	r := Result{Duration: time.Since(start), Built: timing.Built}
	r.Output, r.Cut = out.String()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		r.ExitCode = exitErr.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		r.ExitCode = c.ProcessState.ExitCode()
	default:
		r.ExitCode = -1
		if ctx.Err() == nil && !timing.Over {
			return r, fmt.Errorf("wait for %s: %w", path, err)
		}
	}
	if ctx.Err() != nil {
		r.ExitCode = -1
		return r, ctx.Err()
	}
	if timing.Over {
		r.ExitCode = -1
		r.TimedOut, r.AtCeiling = true, timing.AtCeiling
		r.Output += boxagent.KilledLine(opts.Timeout, opts.BuildCeiling, timing)
	}
	return r, nil
}

// lookPath finds an executable on the configured PATH, not the process's.
func (s *Sandbox) lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		if limit.IsExecutable(name) {
			return name, nil
		}
		return "", fmt.Errorf("%s: not an executable file", name)
	}
	for _, dir := range filepath.SplitList(s.cfg.Path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if limit.IsExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
