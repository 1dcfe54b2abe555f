package deps

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coreagent/core/sandbox/egress"
)

// Running the dependency steps this package plans: each once per
// lockfile, by a Runner (bwrap's network profile or a sibling container),
// through core's proxy to the plan's hosts, the fetched directory kept under
// the Request's Cache and what the step failed with remembered.

// Steps drives the dependency steps of one sandbox.Sandbox. Its zero value is
// ready; it is not copied once used.
type Steps struct {
	// failed remembers, by the hash of the copied files, the dependency
	// steps that failed: said again, not run again.
	failed sync.Map
	// resolved holds the lockfiles the run resolved for repositories
	// without one (resolve.go), by ResolveKey: each a *resolvedLock.
	resolved sync.Map
	// lastResolved is the lockfile the run resolved last, by
	// ResolveLineage: the seed of the next resolution (resolve.go).
	lastResolved sync.Map
}

// Runner runs one step of a plan: the backend's part. A Runner whose
// steps run in a container image also has Image(ctx, tool) (string,
// error), the image's reference, which keys what it fetched; one whose
// fetched directory must be made read-only for everyone also has
// Keep(dir string) error.
type Runner interface {
	// Scratch writes files into a fresh directory of the step's own.
	Scratch(files map[string][]byte) (string, error)
	// Step runs plan's step in scratch, confined, and returns its exit
	// code and output; an error is the backend's, not the step's.
	Step(ctx context.Context, plan Plan, scratch string) (exit int, output string, err error)
}

// imaged is a Runner whose steps run in a container image.
type imaged interface {
	Image(ctx context.Context, tool string) (string, error)
}

// keeper is a Runner whose fetched directory must be made read-only for
// everyone before the commands see it.
type keeper interface {
	Keep(dir string) error
}

// Request is the command a dependency step is for.
type Request struct {
	Tool      string   // the command's program
	Workspace string   // the workspace on the host
	Inside    string   // where the command sees the workspace
	Runners   []string // the runners the command lacks (PlanFor)
	Host      Host
	// Cache is where the fetched dependencies are kept, a directory per
	// lockfile ($CORE_HOME/cache/deps); "" keeps nothing and fetches
	// nothing.
	Cache string
	// Progress, if not nil, is told what the step does; Waiting says that
	// the command waits for it and returns the function that says the wait
	// ended.
	Progress io.Writer
	Waiting  func(what string) (ended func())
}

// Fetch runs the dependency step for req's command, once per lockfile, by
// r, and returns what the command sees of it. A nil r is no backend that
// can run it.
func (st *Steps) Fetch(ctx context.Context, r Runner, req Request) (View, error) {
	plan, note, ok, err := PlanFor(req.Tool, req.Workspace, req.Runners, req.Host, nil)
	if err != nil {
		return View{Note: "core fetched no dependencies: " + err.Error() + "\n"}, nil
	}
	if !ok {
		return View{Note: note}, nil
	}
	if r == nil {
		return View{Note: fmt.Sprintf("core fetched no %s dependencies: the dependency step needs bwrap's network profile or the Docker backend\n", plan.Eco)}, nil
	}
	if req.Cache == "" {
		return View{Note: "core fetched no dependencies: no state directory ($CORE_HOME) to keep them in\n"}, nil
	}
	if plan.Resolves != "" {
		lock, v, err := st.resolveLock(ctx, r, plan, req)
		if err != nil || lock == nil {
			return v, err
		}
		plan, note, ok, err = PlanFor(req.Tool, req.Workspace, req.Runners, req.Host, lock)
		if err != nil {
			return View{Note: "core fetched no dependencies: " + err.Error() + "\n"}, nil
		}
		if !ok || plan.Resolves != "" {
			return View{Note: note}, nil
		}
	}
	key, err := depsKey(ctx, r, req.Tool, plan)
	if err != nil {
		return View{}, err
	}
	dir := filepath.Join(req.Cache, plan.Eco+"-"+key[:24])
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return plan.View(dir, req.Inside), nil
	}
	if v, ok := st.failed.Load(key); ok {
		return v.(View), nil // this process tried: once is enough
	}
	return st.fetchInto(ctx, r, plan, key, dir, req)
}

// depsKey keys what plan fetches: the hash of its files, and when r runs
// the step in an image, that image.
func depsKey(ctx context.Context, r Runner, tool string, plan Plan) (string, error) {
	key := FilesKey(plan.Files)
	if d, ok := r.(imaged); ok {
		// What one image fetched is that image's: a wheel or a
		// node_modules is for one interpreter.
		img, err := d.Image(ctx, tool)
		if err != nil {
			return "", err
		}
		key = FilesKey(map[string][]byte{"files": []byte(key), "image": []byte(img)})
	}
	return key, nil
}

// fetchInto runs plan's step in a scratch directory of its own and keeps
// what it fetched at dir, the dependencies of key; a failure is kept by
// key (stepFailed).
func (st *Steps) fetchInto(ctx context.Context, r Runner, plan Plan, key, dir string, req Request) (View, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return View{}, fmt.Errorf("make the dependency cache: %w", err)
	}
	scratch, err := r.Scratch(plan.Files)
	if err != nil {
		return View{}, err
	}
	defer os.RemoveAll(scratch)
	plan.Egress = &egress.Log{}
	start := time.Now()
	count := PackagesWord(plan.Eco, Packages(plan))
	req.progressf("Fetching %s for the command (%s) …", count, strings.Join(plan.Argv, " "))
	ended := req.waiting(fmt.Sprintf("the dependency step: %s (the network on, no workspace code; not counted against the timeout)", strings.Join(plan.Argv, " ")))
	exit, output, err := r.Step(ctx, plan, scratch)
	ended()
	if err != nil {
		return View{}, fmt.Errorf("%s: %w", strings.Join(plan.Argv, " "), err)
	}
	if exit != 0 {
		return st.stepFailed(ctx, key, plan, output), nil
	}
	if plan.After != nil {
		if err := plan.After(scratch); err != nil {
			return View{Note: plan.Failed(err.Error())}, nil
		}
	}
	if k, ok := r.(keeper); ok {
		// Read-only for everyone from now on, as bwrap's binds are.
		if err := k.Keep(scratch); err != nil {
			return View{}, fmt.Errorf("keep the dependencies: %w", err)
		}
	}
	if err := os.Rename(scratch, dir); err != nil {
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return plan.View(dir, req.Inside), nil // another command's step got there first
		}
		return View{}, fmt.Errorf("keep the dependencies: %w", err)
	}
	req.progressf("Fetched %s in %s.", count, RoundDuration(time.Since(start)))
	return plan.View(dir, req.Inside), nil
}

// progressf writes one line on req's progress writer, if any.
func (req Request) progressf(format string, args ...any) {
	if req.Progress != nil {
		fmt.Fprintf(req.Progress, format+"\n", args...)
	}
}

// waiting says that req's command waits for what, through req.Waiting
// when it is set.
func (req Request) waiting(what string) (ended func()) {
	if req.Waiting == nil {
		return func() {}
	}
	return req.Waiting(what)
}
