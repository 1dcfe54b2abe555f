package sandbox

import (
	"cmp"
	"context"
	"path"
	"slices"
	"time"

	"github.com/coreagent/core/sandbox/deps"
)

// DefaultWarmTimeout bounds the warm-up's compile when the caller sets no
// timeout of its own (CORE_SANDBOX_WARM_TIMEOUT).
const DefaultWarmTimeout = 20 * time.Minute

// warmArgv is the warm-up's command for the module directories given
// (slash-separated, relative to the workspace): it compiles and links every
// package of those modules and its tests, and runs go test's vet checks, as
// go test ./... does, so that the build cache holds what the model's own go
// test needs; -exec=/bin/true then "runs" each test binary with true, so no
// workspace code runs (the build tier's promise holds), and go test caches
// no result for it (it never caches a run under -exec), so the model's go
// test runs the tests for real. A go.work without a module at the root
// needs a pattern per module: ./... alone matches none of them.
func warmArgv(modules []string) []string {
	argv := []string{"go", "test", "-exec=/bin/true"}
	seen := map[string]bool{}
	for _, dir := range modules {
		pattern := "./..."
		if dir != "." {
			pattern = "./" + dir + "/..."
		}
		if !seen[pattern] {
			seen[pattern] = true
			argv = append(argv, pattern)
		}
	}
	return argv
}

// moduleDirs returns the directories of the go.mod files among the module
// files, sorted.
func moduleDirs(files map[string][]byte) []string {
	var dirs []string
	for name := range files {
		if path.Base(name) == "go.mod" {
			dirs = append(dirs, path.Dir(name))
		}
	}
	slices.Sort(dirs)
	return dirs
}

// Warmup is one background warm-up of a workspace's build: the module
// download, then a confined compile of everything the tests need.
type Warmup struct {
	// Workspace is the resolved workspace directory.
	Workspace string
	// Started is when the warm-up began.
	Started time.Time

	done chan struct{}
	res  WarmResult
}

// WarmResult is how a warm-up ended. Its failure is no failure of anyone's:
// a broken build shows in the next command's own output.
type WarmResult struct {
	// Result is the compile's, or the module download's when that failed;
	// Duration is the whole warm-up's.
	Result
	// Err is set when the warm-up could not run to its end: the context
	// ended, or the sandbox failed.
	Err error
	// Download is how long the module download it ran took (0: it ran none).
	Download time.Duration
}

// Done is closed when the warm-up ended.
func (w *Warmup) Done() <-chan struct{} { return w.done }

// Result is how the warm-up ended; it is valid once Done is closed.
func (w *Warmup) Result() WarmResult {
	<-w.done
	return w.res
}

// Warm starts warming the workspace's build in the background, when the
// workspace is a Go module (go.mod at its root, or go.work) and commands run
// confined: the module download, then the workspace's box (with bwrap) and
// go test -exec=/bin/true ./... (a pattern per module of a go.work) under
// the production profile, with the limits and the filter of every confined
// command and a timeout of its own (Config.WarmTimeout).
//
// No command waits for it (but for the module download, which a go command
// needs anyway: it waits for the one under way rather than start another):
// a command that needs less than the whole module runs at once and builds
// what it needs, and both share the run's layer of the build cache, whose
// entries each go writes whole (a temporary file and a rename), so each
// finds what the other finished. The compile runs in the background
// (RunOptions.Background), at a low priority: beside a command someone
// waits for, it gets little of the CPUs.
//
// Warm returns nil when there is nothing to warm; while a warm-up of the
// workspace runs, it returns that one and starts nothing. When ctx ends,
// the warm-up stops.
func (s *Sandbox) Warm(ctx context.Context, workspace string) *Warmup {
	if s.cfg.Mode == ModeOff {
		return nil
	}
	ws, err := s.workspace(workspace)
	if err != nil {
		return nil
	}
	files, err := deps.GoModuleFiles(ws)
	if err != nil {
		return nil // not a module; a bad one the next command reports
	}
	argv := warmArgv(moduleDirs(files))
	if !s.Probe(ctx).Usable {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := s.warming[ws]; w != nil {
		return w
	}
	if s.warming == nil {
		s.warming = map[string]*Warmup{}
	}
	w := &Warmup{Workspace: ws, Started: time.Now(), done: make(chan struct{})}
	s.warming[ws] = w
	go func() {
		w.res = s.warm(ctx, ws, argv)
		w.res.Duration = time.Since(w.Started)
		s.mu.Lock()
		delete(s.warming, ws)
		s.mu.Unlock()
		close(w.done)
	}()
	return w
}

// warm runs the warm-up on Run's own path.
func (s *Sandbox) warm(ctx context.Context, ws string, argv []string) WarmResult {
	timeout := s.cfg.WarmTimeout
	if timeout <= 0 {
		timeout = DefaultWarmTimeout
	}
	opts := RunOptions{Workspace: ws, Timeout: timeout, OutputLimit: 8 << 10, Background: !s.foregroundWarm}
	var dl time.Duration
	if p := s.Probe(ctx); p.Usable && p.Backend == BackendBwrap {
		// The module download first, as every go command's, then the
		// workspace's box, beside the compile: the model's first command
		// then finds it started, seeing the modules downloaded.
		r, ok, err := s.downloadModules(ctx, p.Bwrap, opts)
		if err != nil || !ok {
			r.Argv, r.Sandboxed, r.Setup = argv, true, true
			return WarmResult{Result: r, Err: cmp.Or(err, ctx.Err())}
		}
		dl = r.Duration
		boxed := make(chan struct{})
		go func() {
			defer close(boxed)
			_, _ = s.Box(ctx, ws) // no box here: each command gets a sandbox of its own
		}()
		defer func() { <-boxed }() // started, or stopped with ctx, before the warm-up ends
	}
	r, err := s.run(ctx, argv, opts)
	return WarmResult{Result: r, Err: cmp.Or(err, ctx.Err()), Download: dl}
}
