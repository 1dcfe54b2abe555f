package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/egress"
)

// Running the dependency steps that sandbox/deps plans: each once per
// lockfile, in bwrap's network profile or a sibling container, through
// core's proxy to the plan's hosts, the fetched directory kept under
// $CORE_HOME/cache/deps and what the step failed with remembered
// (Sandbox.depsFailed).

// planDeps is deps.PlanFor with the host's settings of this Sandbox.
func (s *Sandbox) planDeps(tool, ws string, runners []string, resolved []byte) (deps.Plan, string, bool, error) {
	return deps.PlanFor(tool, ws, runners, s.depsHost(), resolved)
}

// depsHost is what the host sets for the dependency steps.
func (s *Sandbox) depsHost() deps.Host {
	return deps.Host{Env: s.cfg.HostEnv, CargoIndex: s.cfg.CargoIndex}
}

// fetchDeps runs the dependency step for the command argv in the
// workspace, once per lockfile, and returns what the command sees of it.
// The step runs in bwrap's network profile, or in a sibling container of
// the ecosystem's image with the network on (sandbox/docker/deps.go).
func (s *Sandbox) fetchDeps(ctx context.Context, b backend, bwrap string, argv []string, opts RunOptions) (deps.View, error) {
	tool := argv[0]
	runners := s.lackedRunners(ctx, argv, opts.Workspace)
	plan, note, ok, err := s.planDeps(tool, opts.Workspace, runners, nil)
	if err != nil {
		return deps.View{Note: "core fetched no dependencies: " + err.Error() + "\n"}, nil
	}
	if !ok {
		return deps.View{Note: note}, nil
	}
	_, viaDocker := b.(*dockerBackend)
	if bwrap == "" && !viaDocker {
		return deps.View{Note: fmt.Sprintf("core fetched no %s dependencies: the dependency step needs bwrap's network profile or the Docker backend\n", plan.Eco)}, nil
	}
	if s.cfg.Home == "" {
		return deps.View{Note: "core fetched no dependencies: no state directory ($CORE_HOME) to keep them in\n"}, nil
	}
	if plan.Resolves != "" {
		lock, v, err := s.resolveLock(ctx, b, bwrap, plan, opts)
		if err != nil || lock == nil {
			return v, err
		}
		plan, note, ok, err = s.planDeps(tool, opts.Workspace, runners, lock)
		if err != nil {
			return deps.View{Note: "core fetched no dependencies: " + err.Error() + "\n"}, nil
		}
		if !ok || plan.Resolves != "" {
			return deps.View{Note: note}, nil
		}
	}
	key, err := depsKey(ctx, b, tool, plan)
	if err != nil {
		return deps.View{}, err
	}
	dir := filepath.Join(s.cfg.Home, "cache", "deps", plan.Eco+"-"+key[:24])
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return plan.View(dir, opts.inside()), nil
	}
	if v, ok := s.depsFailed.Load(key); ok {
		return v.(deps.View), nil // this process tried: once is enough
	}
	return s.fetchInto(ctx, b, bwrap, plan, key, dir, opts)
}

// depsKey keys what plan fetches: the hash of its files, and under the
// Docker backend the image the step runs in.
func depsKey(ctx context.Context, b backend, tool string, plan deps.Plan) (string, error) {
	key := deps.FilesKey(plan.Files)
	if d, viaDocker := b.(*dockerBackend); viaDocker {
		// What one image fetched is that image's: a wheel or a
		// node_modules is for one interpreter.
		img, err := d.ImageFor(ctx, tool)
		if err != nil {
			return "", err
		}
		key = deps.FilesKey(map[string][]byte{"files": []byte(key), "image": []byte(img.Ref)})
	}
	return key, nil
}

// fetchInto runs plan's step in a scratch directory of its own and keeps
// what it fetched at dir, the dependencies of key; a failure is kept by
// key (stepFailed).
func (s *Sandbox) fetchInto(ctx context.Context, b backend, bwrap string, plan deps.Plan, key, dir string, opts RunOptions) (deps.View, error) {
	_, viaDocker := b.(*dockerBackend)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return deps.View{}, fmt.Errorf("make the dependency cache: %w", err)
	}
	scratch, err := s.scratch(plan.Files)
	if err != nil {
		return deps.View{}, err
	}
	defer os.RemoveAll(scratch)
	plan.Egress = &egress.Log{}
	start := time.Now()
	count := deps.PackagesWord(plan.Eco, deps.Packages(plan))
	progressf(opts, "Fetching %s for the command (%s) …", count, strings.Join(plan.Argv, " "))
	ended := waitingFor(opts.Progress, fmt.Sprintf("the dependency step: %s (the network on, no workspace code; not counted against the timeout)", strings.Join(plan.Argv, " ")))
	r, err := s.depsStep(ctx, b, bwrap, plan, scratch)
	ended()
	if err != nil {
		return deps.View{}, fmt.Errorf("%s: %w", strings.Join(plan.Argv, " "), err)
	}
	if r.ExitCode != 0 {
		return s.stepFailed(ctx, key, plan, r.Output), nil
	}
	if plan.After != nil {
		if err := plan.After(scratch); err != nil {
			return deps.View{Note: plan.Failed(err.Error())}, nil
		}
	}
	if viaDocker {
		// Read-only for everyone from now on, as bwrap's binds are.
		if err := os.Chmod(scratch, 0o755); err != nil {
			return deps.View{}, fmt.Errorf("keep the dependencies: %w", err)
		}
	}
	if err := os.Rename(scratch, dir); err != nil {
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return plan.View(dir, opts.inside()), nil // another command's step got there first
		}
		return deps.View{}, fmt.Errorf("keep the dependencies: %w", err)
	}
	progressf(opts, "Fetched %s in %s.", count, roundDuration(time.Since(start)))
	return plan.View(dir, opts.inside()), nil
}

// depsStep runs plan's step in scratch: in bwrap's network profile, or in
// a sibling container of the ecosystem's image (sandbox/docker/deps.go).
func (s *Sandbox) depsStep(ctx context.Context, b backend, bwrap string, plan deps.Plan, scratch string) (Result, error) {
	if d, ok := b.(*dockerBackend); ok {
		return d.fetch(ctx, plan, scratch, plan.HostEnv)
	}
	return s.fetchConfined(ctx, bwrap, plan, scratch)
}

// fetchConfined runs the step in bwrap's network profile: the scratch
// directory and nothing of $CORE_HOME. Its network is the proxy to the
// plan's hosts (egress.go), behind core's executable inside; without
// that executable (a test's Config), the host's network, as before.
func (s *Sandbox) fetchConfined(ctx context.Context, bwrap string, plan deps.Plan, scratch string) (Result, error) {
	p, err := s.profileFor(plan.Tool)
	if err != nil {
		return Result{}, err
	}
	p.scratch = scratch
	p.modCache, p.buildCache = "", "" // nothing of $CORE_HOME
	p.hostEnv = plan.HostEnv
	p.extraEnv = plan.Env
	argv := plan.Argv
	if exe := s.agentExe(); exe != "" {
		proxy, err := egress.Serve(plan.Hosts, plan.Egress)
		if err != nil {
			return Result{}, err
		}
		defer proxy.Close()
		// No network of its own: core's executable, at the box agent's
		// place, and the proxy's socket, at the box's directory.
		p.network, p.cacheProg = false, ""
		p.agent, p.boxDir = exe, proxy.Dir()
		p.extraEnv = append(slices.Clone(plan.Env), egress.Env...)
		argv = egressCommand(cacheProgPath, deps.WithPipProxy(plan.Argv))
	} else {
		s.networked(&p)
		p.modCacheRW = false
		p.hostEnv = plan.HostEnv
	}
	return s.launch(ctx, bwrap, p, argv, RunOptions{Workspace: scratch, Timeout: s.cfg.DownloadTimeout, OutputLimit: 4 << 10})
}
