package sandbox

import (
	"context"

	"github.com/moby/moby/api/types/mount"
)

// The dependency step under the Docker backend (deps.go): the same step as
// in bwrap's network profile, in a sibling container of the ecosystem's
// image. It sees the scratch directory of validated copies and nothing
// else of the host: no workspace, nothing of $CORE_HOME, no Docker socket.
// Its network is core's own (the network of core's container, or the
// host's on a host: what bwrap's --share-net gives), on for this step
// only; the commands after it run with none. Nothing of the workspace runs
// while it is on: the step's argv is core's (npm ci --ignore-scripts, pip
// wheels only, cargo vendor).

// fetch runs plan's step in a sibling with the network, in scratch.
func (d *dockerBackend) fetch(ctx context.Context, plan depsPlan, scratch string, hostEnv []string) (Result, error) {
	img, err := d.imageFor(ctx, plan.tool)
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
	p := profile{scratch: scratch, lang: d.s.cfg.Lang, path: img.path, extraEnv: plan.env, hostEnv: hostEnv}
	create := d.config(img, sibling{
		argv:    plan.argv,
		dir:     scratchDir,
		env:     p.env(),
		mounts:  []mount.Mount{{Type: mount.TypeBind, Source: host, Target: scratchDir}},
		network: d.network(),
	})
	return d.start(ctx, create, RunOptions{Workspace: scratch, Timeout: d.s.cfg.DownloadTimeout, OutputLimit: 4 << 10})
}

// network is the network mode of a dependency step: core's own.
func (d *dockerBackend) network() string {
	if d.self != "" {
		return "container:" + d.self
	}
	return "host"
}
