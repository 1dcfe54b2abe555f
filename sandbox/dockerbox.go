package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moby/moby/api/types/mount"
	"golang.org/x/sys/unix"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/output"
)

// The Docker backend's box (box.go) as the sandbox drives it: which
// image and binds a command needs of the workspace's sibling container
// (sandbox/docker/box.go), whether the running one holds them, and its
// start with the box's host directory and socket.

// runBoxed runs a command through the workspace's Docker box when there is
// one to use: ok is false when the command must get a container of its own
// (no box here, NoBox, a box that cannot start or hold it).
func (d *dockerBackend) runBoxed(ctx context.Context, img *docker.Image, argv []string, opts RunOptions) (Result, bool, error) {
	if opts.NoBox || opts.Workspace == "" {
		return Result{}, false, nil
	}
	b, err := d.s.boxFor(opts.Workspace, "", d)
	if err != nil {
		return Result{}, false, nil
	}
	if _, ok := lang.EcosystemOf(argv[0]); !ok {
		// A shell, coreutils: any image has them, the box's as well as
		// core's own.
		if cur := b.dockerImage(); cur != nil {
			img = cur
		}
	}
	sb, err := d.siblingFor(img, argv, opts)
	if err != nil {
		return Result{}, false, nil
	}
	env := docker.MergeEnv(img.Env, sb.Env)
	if requestSize(argv, env) > boxagent.MaxArgBytes {
		return Result{}, false, nil // too long for a frame: a container of its own
	}
	inst, err := b.acquireDocker(ctx, &docker.Need{Image: img, Mounts: sb.Mounts})
	if err != nil {
		return Result{}, false, nil
	}
	defer inst.active.Add(-1)
	r, err := inst.run(ctx, argv, env, sb.Dir, d.s.cfg.Limits, opts)
	return b.settle(ctx, inst, argv, r, err)
}

// prepareBoxed is Box.prepare under the Docker backend.
func (d *dockerBackend) prepareBoxed(ctx context.Context, b *Box, argv []string) (*boxInst, []string, error) {
	img, err := d.ImageFor(ctx, argv[0])
	if err != nil {
		return nil, nil, err
	}
	if _, ok := lang.EcosystemOf(argv[0]); !ok {
		if cur := b.dockerImage(); cur != nil {
			img = cur
		}
	}
	sb, err := d.siblingFor(img, argv, RunOptions{Workspace: b.ws})
	if err != nil {
		return nil, nil, err
	}
	inst, err := b.acquireDocker(ctx, &docker.Need{Image: img, Mounts: sb.Mounts})
	if err != nil {
		return nil, nil, err
	}
	return inst, docker.MergeEnv(img.Env, sb.Env), nil
}

// dockerImage is the image of the running Docker box, or nil.
func (b *Box) dockerImage() *docker.Image {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inst == nil || b.inst.ctr == nil || !b.inst.alive() {
		return nil
	}
	return b.inst.ctr.Image
}

// acquireDocker is acquire for a Docker box: need nil is the box as it
// starts.
func (b *Box) acquireDocker(ctx context.Context, need *docker.Need) (*boxInst, error) {
	fits := func(inst *boxInst) bool { return need == nil || holds(inst.ctr, need) }
	return b.acquireWith(ctx, fits, func(ctx context.Context, prev *boxInst) (*boxInst, error) {
		n, err := b.docker.boxNeed(ctx, b.ws, need, prev)
		if err != nil {
			return nil, err
		}
		return b.docker.startBox(ctx, b.ws, n)
	})
}

// holds reports whether the box c runs need's image and binds all it binds.
func holds(c *docker.BoxContainer, need *docker.Need) bool {
	if need.Image.Ref != c.Image.Ref {
		return false
	}
	for _, m := range need.Mounts {
		if !slices.ContainsFunc(c.Mounts, func(o mount.Mount) bool { return sameMount(o, m) }) {
			return false
		}
	}
	return true
}

// boxNeed is what a Docker box starts with: need's image and binds, with
// what the box before it (prev) bound and need does not replace; without
// need, the image of the workspace's first ecosystem and the binds every
// command has.
func (d *dockerBackend) boxNeed(ctx context.Context, ws string, need *docker.Need, prev *boxInst) (docker.Need, error) {
	var n docker.Need
	if need != nil {
		n = docker.Need{Image: need.Image, Mounts: slices.Clone(need.Mounts)}
	} else {
		tool := "sh"
		if project, err := lang.Detect(ws, deps.PythonFetches); err == nil {
			for _, e := range lang.Ecosystems() {
				if project.Has(e.Name) {
					tool = e.Tools[0]
					break
				}
			}
		}
		img, err := d.ImageFor(ctx, tool)
		if err != nil {
			return docker.Need{}, err
		}
		sb, err := d.siblingFor(img, []string{tool}, RunOptions{Workspace: ws})
		if err != nil {
			return docker.Need{}, err
		}
		n = docker.Need{Image: img, Mounts: sb.Mounts}
	}
	if prev != nil && prev.ctr != nil {
		for _, m := range prev.ctr.Mounts {
			if !slices.ContainsFunc(n.Mounts, func(o mount.Mount) bool { return o.Target == m.Target }) {
				n.Mounts = append(n.Mounts, m)
			}
		}
	}
	return n, nil
}

// startBox starts a Docker box for the workspace ws and waits for its
// agent to listen.
func (d *dockerBackend) startBox(ctx context.Context, ws string, n docker.Need) (*boxInst, error) {
	agent := d.s.agentExe()
	if agent == "" {
		return nil, fmt.Errorf("%w: core's executable, which runs the box's agent, is not known", ErrNoBox)
	}
	base := os.TempDir()
	if d.s.cfg.Home != "" {
		base = filepath.Join(d.s.cfg.Home, "tmp") // under a mount of core's container, as the probe's workspace
	}
	d.s.boxSweep.Do(func() { sweepBoxDirs(base) })
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("start the box: %w", err)
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("core-box-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("start the box: %w", err)
	}
	done := make(chan struct{})
	inst := &boxInst{dir: dir, dirFD: -1, done: done, stderr: output.NewCapped(4 << 10)}
	fail := func(err error) (*boxInst, error) {
		inst.stop()
		return nil, fmt.Errorf("start the box's container: %w", err)
	}
	binds, err := d.BoxBinds(dir, agent)
	if err != nil {
		return fail(err)
	}
	if inst.dirFD, err = unix.Open(filepath.Join(dir, "s"), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
		return fail(err)
	}
	c, ready, err := d.StartBox(ctx, ws, n, binds, inst.stderr, done)
	if c != nil {
		inst.ctr = c
	}
	if err != nil {
		return fail(err)
	}
	werr := waitReady(ctx, ready)
	if werr == nil {
		return inst, nil
	}
	if out := strings.TrimSpace(inst.stderr.Text()); out != "" {
		werr = fmt.Errorf("%w: %s", werr, out)
	}
	return fail(werr)
}
