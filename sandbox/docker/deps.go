package docker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/moby/moby/api/types/mount"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/egress"
)

// The dependency step under the Docker backend (sandbox/deps): the same step as
// in bwrap, in a sibling container of the ecosystem's image. It sees the
// scratch directory of validated copies and nothing else of the host: no
// workspace, nothing of $CORE_HOME, no Docker socket. Its network is none
// (--network none), and its one way out is core's proxy (sandbox/egress), as
// under bwrap: core's executable, bound where the box's agent is, runs the
// step's command behind the forwarder, and the proxy's socket is bound at
// the box's directory. Without core's executable, the step has core's own
// network (the network of core's container, or the host's on a host), as
// before. Nothing of the workspace runs while it is on: the step's argv is
// core's (npm ci --ignore-scripts, pip wheels only, cargo vendor).

// Step is how the sandbox runs a dependency step.
type Step struct {
	// Agent is core's executable on the host, or empty: the step then
	// has core's own network.
	Agent string
	// EgressArgv is the step's argv behind core's forwarder to the proxy
	// (core's executable at Settings.AgentPath).
	EgressArgv []string
	// Env is the step's environment of the image's PATH and extra, the
	// step's own variables.
	Env func(path, extra []string) []string
	// Timeout bounds the step.
	Timeout time.Duration
}

// Fetch runs plan's step in a sibling, in scratch.
func (d *Backend) Fetch(ctx context.Context, plan deps.Plan, scratch string, step Step) (Outcome, error) {
	img, err := d.ImageFor(ctx, plan.Tool)
	if err != nil {
		return Outcome{}, err
	}
	host, err := d.HostPath(scratch)
	if err != nil {
		return Outcome{}, err
	}
	// The sandbox user writes the fetched files into it.
	if err := ShareWorkspace(scratch); err != nil {
		return Outcome{}, err
	}
	extra := plan.Env
	sb := Sibling{
		Argv:    plan.Argv,
		Dir:     deps.ScratchDir,
		Mounts:  []mount.Mount{{Type: mount.TypeBind, Source: host, Target: deps.ScratchDir}},
		Network: d.network(),
	}
	if agent := step.Agent; agent != "" {
		proxy, binds, cleanup, err := d.egress(plan, agent)
		if err != nil {
			return Outcome{}, err
		}
		defer cleanup()
		defer proxy.Close()
		extra = append(slices.Clone(plan.Env), egress.Env...)
		sb.Argv = step.EgressArgv
		sb.Mounts = append(sb.Mounts, binds...)
		sb.Network = ""
	}
	sb.Env = step.Env(img.Path, extra)
	create := d.Config(img, sb)
	return d.Start(ctx, create, Bounds{Timeout: step.Timeout, OutputLimit: 4 << 10})
}

// egress serves plan's proxy in a directory the engine sees, and returns
// it with the binds of its socket and core's executable (the box's).
func (d *Backend) egress(plan deps.Plan, agent string) (*egress.Proxy, []mount.Mount, func(), error) {
	base := os.TempDir()
	if d.st.Home != "" {
		base = filepath.Join(d.st.Home, "tmp") // under a mount of core's container, as the box's
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("serve the dependency step's proxy: %w", err)
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("core-egress-%d-", os.Getpid()))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("serve the dependency step's proxy: %w", err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	binds, err := d.BoxBinds(dir, agent)
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
func (d *Backend) network() string {
	if d.self != "" {
		return "container:" + d.self
	}
	return "host"
}
