package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/egress"
)

// The dependency step's wiring: deps.Steps drives it, once per lockfile; the
// backend runs it, in bwrap's network profile (bwrapSteps) or in a sibling
// container of the ecosystem's image with the network on (dockerSteps,
// sandbox/docker/deps.go), behind core's proxy to the plan's hosts.

// fetchDeps runs the dependency step for the command argv in the
// workspace, once per lockfile, and returns what the command sees of it.
func (s *Sandbox) fetchDeps(ctx context.Context, b backend, bwrap string, argv []string, opts RunOptions) (deps.View, error) {
	req := deps.Request{
		Tool:      argv[0],
		Workspace: opts.Workspace,
		Inside:    opts.inside(),
		Runners:   s.lackedRunners(ctx, argv, opts.Workspace),
		Host:      s.depsHost(),
		Progress:  opts.Progress,
		Waiting:   func(what string) func() { return waitingFor(opts.Progress, what) },
	}
	if s.cfg.Home != "" {
		req.Cache = filepath.Join(s.cfg.Home, "cache", "deps")
	}
	var r deps.Runner
	if d, viaDocker := b.(*dockerBackend); viaDocker {
		r = dockerSteps{d}
	} else if bwrap != "" {
		r = bwrapSteps{s, bwrap}
	}
	return s.steps.Fetch(ctx, r, req)
}

// depsHost is what the host sets for the dependency steps.
func (s *Sandbox) depsHost() deps.Host {
	return deps.Host{Env: s.cfg.HostEnv, CargoIndex: s.cfg.CargoIndex}
}

// bwrapSteps runs the dependency steps in bwrap's network profile.
type bwrapSteps struct {
	s     *Sandbox
	bwrap string
}

func (r bwrapSteps) Scratch(files map[string][]byte) (string, error) { return r.s.scratch(files) }

func (r bwrapSteps) Step(ctx context.Context, plan deps.Plan, scratch string) (int, string, error) {
	res, err := r.s.fetchConfined(ctx, r.bwrap, plan, scratch)
	return res.ExitCode, res.Output, err
}

// dockerSteps runs the dependency steps in sibling containers
// (sandbox/docker/deps.go).
type dockerSteps struct{ d *dockerBackend }

func (r dockerSteps) Scratch(files map[string][]byte) (string, error) { return r.d.s.scratch(files) }

func (r dockerSteps) Step(ctx context.Context, plan deps.Plan, scratch string) (int, string, error) {
	res, err := r.d.fetch(ctx, plan, scratch, plan.HostEnv)
	return res.ExitCode, res.Output, err
}

// Image is the image tool's step runs in: what it fetched is that image's.
func (r dockerSteps) Image(ctx context.Context, tool string) (string, error) {
	img, err := r.d.ImageFor(ctx, tool)
	if err != nil {
		return "", err
	}
	return img.Ref, nil
}

// Keep makes dir read-only for everyone, as bwrap's binds are.
func (r dockerSteps) Keep(dir string) error { return os.Chmod(dir, 0o755) }

// fetchConfined runs the step in bwrap's network profile: the scratch
// directory and nothing of $CORE_HOME. Its network is the proxy to the
// plan's hosts (sandbox/egress), behind core's executable inside; without
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

// egressCommand is the step's argv run behind the forwarder at exe.
func egressCommand(exe string, argv []string) []string {
	return append([]string{exe, "sandbox", "egress", "--socket", boxDirPath + "/" + egress.Socket, "--listen", egress.Listen, "--"}, argv...)
}
