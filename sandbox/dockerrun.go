package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/output"
)

// The Docker backend (sandbox/docker) as the sandbox drives it: the
// policy of what a command sees (its binds and environment, from its
// profile) is the sandbox's, and the backend turns it into a sibling
// container.

// dockerBackend confines commands in sibling containers of core's own
// image: the sandbox's policy over the docker package's backend.
type dockerBackend struct {
	*docker.Backend
	s *Sandbox
}

// dockerSettings is what the sandbox's configuration says of the Docker
// backend.
func (s *Sandbox) dockerSettings() docker.Settings {
	return docker.Settings{Host: s.cfg.DockerHost, Image: s.cfg.DockerImage, Home: s.cfg.Home, Limits: s.cfg.Limits,
		ToolchainImages: s.cfg.ToolchainImages, ProbeTimeout: probeTimeout, ConfigDir: sandboxHome + "/.config",
		AgentPath: cacheProgPath, BoxDir: boxDirPath, Socket: boxSocket, Hosts: boxHosts,
		NewOutput: func(limit int) docker.Output { return output.NewCapped(limit) }}
}

// probeDocker connects to the engine, finds core's own container and its
// mounts, removes siblings a dead core left behind, and runs the probe
// script in a sibling container with its scratch workspace under dir.
func (s *Sandbox) probeDocker(ctx context.Context, dir string) (*dockerBackend, docker.Probe) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	b, res := docker.Connect(ctx, s.dockerSettings())
	if b == nil {
		return nil, res
	}
	d := &dockerBackend{Backend: b, s: s}
	if out, cause := d.selfTest(ctx, dir); cause != "" {
		res.Cause, res.Output = cause, out
		return nil, res
	}
	res.Usable = true
	return d, res
}

// selfTest runs the probe script in a sibling container, in a scratch
// workspace under dir, and says what is wrong, if anything.
func (d *dockerBackend) selfTest(ctx context.Context, dir string) (output, cause string) {
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Sprintf("cannot make a scratch workspace under %s: %v", dir, err)
	}
	ws, err := os.MkdirTemp(dir, "core-probe-")
	if err != nil {
		return "", fmt.Sprintf("cannot make a scratch workspace under %s: %v", dir, err)
	}
	defer os.RemoveAll(ws)
	if ws, err = filepath.EvalSymlinks(ws); err != nil {
		return "", fmt.Sprintf("cannot resolve the scratch workspace: %v", err)
	}
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		return "", fmt.Sprintf("cannot make a scratch workspace: %v", err)
	}
	r, err := d.run(ctx, []string{"sh", "-c", probeScript}, RunOptions{Workspace: ws, OutputLimit: 8 << 10, NoBox: true})
	out := strings.TrimSpace(r.Output)
	switch {
	case err != nil:
		return err.Error(), "the engine refused the sandbox container"
	case r.ExitCode != 0:
		return out, fmt.Sprintf("the probe command failed in the sandbox container (exit %d)", r.ExitCode)
	case !fileHolds(ws, ".core-probe", "ok\n"):
		return out, "a sandboxed command could not write into its workspace (is the workspace on a path the engine's host sees?)"
	}
	if ifs := interfaces(out); len(ifs) != 1 || ifs[0] != "lo" {
		return out, fmt.Sprintf("the network is visible inside the sandbox container (interfaces %s)", strings.Join(ifs, ", "))
	}
	return "", ""
}

// run runs argv in the workspace's box (dockerbox.go), or else in a fresh
// sibling container of its ecosystem's image, and waits for it.
func (d *dockerBackend) run(ctx context.Context, argv []string, opts RunOptions) (Result, error) {
	img, err := d.ImageFor(ctx, argv[0])
	if err != nil {
		return Result{Argv: argv, ExitCode: -1, Sandboxed: true}, err
	}
	if r, ok, err := d.runBoxed(ctx, img, argv, opts); ok {
		return r, err
	}
	sb, err := d.siblingFor(img, argv, opts)
	if err != nil {
		return Result{Argv: argv, ExitCode: -1, Sandboxed: true}, err
	}
	return d.start(ctx, d.Config(img, sb), opts)
}

// start creates the sibling, runs it and waits for it.
func (d *dockerBackend) start(ctx context.Context, create client.ContainerCreateOptions, opts RunOptions) (Result, error) {
	defer runtime.KeepAlive(d.s) // its run layer goes with it (gocache/layers.go)
	o, err := d.Start(ctx, create, docker.Bounds{Timeout: opts.Timeout, OutputLimit: opts.OutputLimit})
	return fromOutcome(o), err
}

// fromOutcome is the Result of a sibling's outcome.
func fromOutcome(o docker.Outcome) Result {
	return Result{Argv: o.Argv, ExitCode: o.ExitCode, Output: o.Output, Cut: o.Cut, Duration: o.Duration, Sandboxed: o.Sandboxed, TimedOut: o.TimedOut}
}

// containerFor builds the sibling's configuration: the profile's guarantees
// expressed as container options.
func (d *dockerBackend) containerFor(img *docker.Image, argv []string, opts RunOptions) (client.ContainerCreateOptions, error) {
	sb, err := d.siblingFor(img, argv, opts)
	if err != nil {
		return client.ContainerCreateOptions{}, err
	}
	return d.Config(img, sb), nil
}

// siblingFor is what a command of argv gets in a sibling container of
// img, or in the box (dockerbox.go): its binds and its environment.
func (d *dockerBackend) siblingFor(img *docker.Image, argv []string, opts RunOptions) (docker.Sibling, error) {
	var binds []mount.Mount
	bindAt := func(path, target string, readOnly bool) error {
		host, err := d.HostPath(path)
		if err != nil {
			return err
		}
		binds = append(binds, mount.Mount{Type: mount.TypeBind, Source: host, Target: target, ReadOnly: readOnly})
		return nil
	}
	bind := func(path string, readOnly bool) error { return bindAt(path, path, readOnly) }
	p := profile{workspace: opts.Workspace, lang: d.s.cfg.Lang, path: append(append([]string(nil), opts.deps.Path...), img.Path...),
		extraEnv: commandEnv(argv[0], opts)}
	bin := ""
	if img.Ref == d.Image() {
		bin = d.s.fetchedToolchain(opts.Workspace)
	}
	if bin != "" {
		p.path = append([]string{bin}, p.path...) // the target's Go (toolchain.go)
	}
	if d.s.cfg.Home != "" {
		var err error
		if p.modCache, err = d.s.modCache(); err != nil {
			return docker.Sibling{}, err
		}
		// The run's layer alone: a sibling has no cache program, so
		// nothing it builds is shared with another run (gocache/layers.go).
		if p.buildCache, err = d.s.runs.Run(opts.Workspace); err != nil {
			return docker.Sibling{}, err
		}
		if err := docker.ShareCaches(p.modCache, p.buildCache); err != nil {
			return docker.Sibling{}, err
		}
		// Only the modules the workspace names (gocache/modview.go).
		if err := d.s.withModView(&p, bin); err != nil {
			return docker.Sibling{}, err
		}
		if err := bindAt(p.modView, p.modCache, true); err != nil {
			return docker.Sibling{}, err
		}
		for _, k := range p.modKeep {
			if err := bind(k, true); err != nil {
				return docker.Sibling{}, err
			}
		}
		if err := bind(p.buildCache, false); err != nil {
			return docker.Sibling{}, err
		}
	}
	if err := docker.ShareWorkspace(opts.Workspace); err != nil {
		return docker.Sibling{}, err
	}
	inside := opts.inside()
	if err := bindAt(opts.Workspace, inside, false); err != nil {
		return docker.Sibling{}, err
	}
	if _, err := os.Lstat(filepath.Join(opts.Workspace, ".git")); err == nil {
		if err := bindAt(filepath.Join(opts.Workspace, ".git"), filepath.Join(inside, ".git"), true); err != nil {
			return docker.Sibling{}, err
		}
	}
	// The go command's telemetry off, as under bwrap (confine.go): go
	// would start a telemetry process of its own beside every command.
	if f := d.s.telemetryFile(); f != "" {
		if err := bindAt(f, goTelemetryMode, true); err != nil {
			return docker.Sibling{}, err
		}
	}
	// The dependencies fetched for it (sandbox/deps), read-only, but the
	// directories tools write: a tmpfs each (writable.go).
	for _, b := range opts.deps.Binds {
		if err := bindAt(b.Host, b.Inside, true); err != nil {
			return docker.Sibling{}, err
		}
	}
	binds = append(binds, writableMounts(opts.deps.Writable)...)
	return docker.Sibling{Argv: argv, Dir: inside, Env: p.env(), Mounts: binds, Background: opts.Background}, nil
}

// has reports which of e's programs (toolchainPrograms) the image of e's
// commands has (docker.Backend.Has).
func (d *dockerBackend) has(ctx context.Context, e lang.Ecosystem) (string, map[string]bool, error) {
	defer runtime.KeepAlive(d.s) // as start's
	env := func(path []string) []string { return profile{lang: d.s.cfg.Lang, path: path}.env() }
	return d.Has(ctx, e, toolchainPrograms(e), env, probeTimeout)
}

// fetch runs plan's step in a sibling, in scratch (docker.Backend.Fetch):
// its environment is a profile's of the scratch directory and hostEnv.
func (d *dockerBackend) fetch(ctx context.Context, plan deps.Plan, scratch string, hostEnv []string) (Result, error) {
	defer runtime.KeepAlive(d.s) // as start's
	step := docker.Step{Agent: d.s.agentExe(), EgressArgv: egressCommand(cacheProgPath, deps.WithPipProxy(plan.Argv)), Timeout: d.s.cfg.DownloadTimeout,
		Env: func(path, extra []string) []string {
			return profile{scratch: scratch, lang: d.s.cfg.Lang, path: path, extraEnv: extra, hostEnv: hostEnv}.env()
		}}
	o, err := d.Fetch(ctx, plan, scratch, step)
	return fromOutcome(o), err
}
