package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/moby/moby/api/types/mount"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/egress"
)

// The dependency step under the Docker backend (deps.go): the same step as
// in bwrap, in a sibling container of the ecosystem's image. It sees the
// scratch directory of validated copies and nothing else of the host: no
// workspace, nothing of $CORE_HOME, no Docker socket. Its network is none
// (--network none), and its one way out is core's proxy (egress.go), as
// under bwrap: core's executable, bound where the box's agent is, runs the
// step's command behind the forwarder, and the proxy's socket is bound at
// the box's directory. Without core's executable, the step has core's own
// network (the network of core's container, or the host's on a host), as
// before. Nothing of the workspace runs while it is on: the step's argv is
// core's (npm ci --ignore-scripts, pip wheels only, cargo vendor).

// fetch runs plan's step in a sibling, in scratch.
func (d *dockerBackend) fetch(ctx context.Context, plan deps.Plan, scratch string, hostEnv []string) (Result, error) {
	img, err := d.imageFor(ctx, plan.Tool)
	if err != nil {
		return Result{}, err
	}
	host, err := d.hostPath(scratch)
	if err != nil {
		return Result{}, err
	}
	// The sandbox user writes the fetched files into it.
	if err := shareWorkspace(scratch); err != nil {
		return Result{}, err
	}
	p := profile{scratch: scratch, lang: d.s.cfg.Lang, path: img.path, extraEnv: plan.Env, hostEnv: hostEnv}
	sb := sibling{
		argv:    plan.Argv,
		dir:     deps.ScratchDir,
		mounts:  []mount.Mount{{Type: mount.TypeBind, Source: host, Target: deps.ScratchDir}},
		network: d.network(),
	}
	if agent := d.s.agentExe(); agent != "" {
		proxy, binds, cleanup, err := d.egress(plan, agent)
		if err != nil {
			return Result{}, err
		}
		defer cleanup()
		defer proxy.Close()
		p.extraEnv = append(slices.Clone(plan.Env), egress.Env...)
		sb.argv = egressCommand(boxAgentPath, deps.WithPipProxy(plan.Argv))
		sb.mounts = append(sb.mounts, binds...)
		sb.network = ""
	}
	sb.env = p.env()
	create := d.config(img, sb)
	return d.start(ctx, create, RunOptions{Workspace: scratch, Timeout: d.s.cfg.DownloadTimeout, OutputLimit: 4 << 10})
}

// egress serves plan's proxy in a directory the engine sees, and returns
// it with the binds of its socket and core's executable (the box's).
func (d *dockerBackend) egress(plan deps.Plan, agent string) (*egress.Proxy, []mount.Mount, func(), error) {
	base := os.TempDir()
	if d.s.cfg.Home != "" {
		base = filepath.Join(d.s.cfg.Home, "tmp") // under a mount of core's container, as the box's
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("serve the dependency step's proxy: %w", err)
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("core-egress-%d-", os.Getpid()))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("serve the dependency step's proxy: %w", err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	binds, err := d.boxBinds(dir, agent)
	if err != nil {
		cleanup()
		return nil, nil, nil, fmt.Errorf("serve the dependency step's proxy: %w", err)
	}
	proxy, err := egress.ServeIn(filepath.Join(dir, "s"), plan.Hosts, plan.Egress)
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	return proxy, binds, cleanup, nil
}

// network is the network mode of a dependency step without core's
// executable: core's own.
func (d *dockerBackend) network() string {
	if d.self != "" {
		return "container:" + d.self
	}
	return "host"
}
