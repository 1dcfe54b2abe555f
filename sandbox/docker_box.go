package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
	"golang.org/x/sys/unix"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/lang"
)

// The Docker backend's box (box.go): one sibling container per workspace,
// with the hardening, limits and binds every sibling has (docker.go), its
// own /etc/hosts, and core's agent as its first process. The agent is
// core's own executable, bound read-only (a copy under $CORE_HOME when
// core's container has it in its image, where the engine cannot bind it
// from). The host reaches the agent through a unix socket in a host
// directory bound into the container, as in the bwrap box: the same
// protocol, one connection a command, and the same dial that follows no
// link. A unix socket works wherever the backend does, since the
// workspace's binds already need the engine on core's kernel. The
// container's life hangs on core's attach connection: the agent exits when
// its stdin ends, which the engine makes happen when core closes the
// connection or dies, and the container, started with auto-remove, goes
// with everything in it. Its labels are every sibling's, so a later probe
// removes what a dead engine connection left.

// boxAgentPath is where a Docker box sees core's executable.
const boxAgentPath = cacheProgPath

// boxContainer is a Docker box's sibling container.
type boxContainer struct {
	d      *dockerBackend
	id     string
	img    *image
	mounts []mount.Mount // the command binds it holds (not the box's own)
	att    *client.HijackedResponse
	done   <-chan struct{} // the engine removed it
}

// dockerNeed is what a command asks of a Docker box: its image and binds.
type dockerNeed struct {
	img    *image
	mounts []mount.Mount
}

// runBoxed runs a command through the workspace's Docker box when there is
// one to use: ok is false when the command must get a container of its own
// (no box here, NoBox, a box that cannot start or hold it).
func (d *dockerBackend) runBoxed(ctx context.Context, img *image, argv []string, opts RunOptions) (Result, bool, error) {
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
	env := mergeEnv(img.env, sb.env)
	if requestSize(argv, env) > boxagent.MaxArgBytes {
		return Result{}, false, nil // too long for a frame: a container of its own
	}
	inst, err := b.acquireDocker(ctx, &dockerNeed{img: img, mounts: sb.mounts})
	if err != nil {
		return Result{}, false, nil
	}
	defer inst.active.Add(-1)
	r, err := inst.run(ctx, argv, env, sb.dir, d.s.cfg.Limits, opts)
	return b.settle(ctx, inst, argv, r, err)
}

// prepareBoxed is Box.prepare under the Docker backend.
func (d *dockerBackend) prepareBoxed(ctx context.Context, b *Box, argv []string) (*boxInst, []string, error) {
	img, err := d.imageFor(ctx, argv[0])
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
	inst, err := b.acquireDocker(ctx, &dockerNeed{img: img, mounts: sb.mounts})
	if err != nil {
		return nil, nil, err
	}
	return inst, mergeEnv(img.env, sb.env), nil
}

// dockerImage is the image of the running Docker box, or nil.
func (b *Box) dockerImage() *image {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inst == nil || b.inst.ctr == nil || !b.inst.alive() {
		return nil
	}
	return b.inst.ctr.img
}

// acquireDocker is acquire for a Docker box: need nil is the box as it
// starts.
func (b *Box) acquireDocker(ctx context.Context, need *dockerNeed) (*boxInst, error) {
	fits := func(inst *boxInst) bool { return need == nil || inst.ctr.holds(need) }
	return b.acquireWith(ctx, fits, func(ctx context.Context, prev *boxInst) (*boxInst, error) {
		n, err := b.docker.boxNeed(ctx, b.ws, need, prev)
		if err != nil {
			return nil, err
		}
		return b.docker.startBox(ctx, b.ws, n)
	})
}

// holds reports whether the box runs need's image and binds all it binds.
func (c *boxContainer) holds(need *dockerNeed) bool {
	if need.img.ref != c.img.ref {
		return false
	}
	for _, m := range need.mounts {
		if !slices.ContainsFunc(c.mounts, func(o mount.Mount) bool { return sameMount(o, m) }) {
			return false
		}
	}
	return true
}

// boxNeed is what a Docker box starts with: need's image and binds, with
// what the box before it (prev) bound and need does not replace; without
// need, the image of the workspace's first ecosystem and the binds every
// command has.
func (d *dockerBackend) boxNeed(ctx context.Context, ws string, need *dockerNeed, prev *boxInst) (dockerNeed, error) {
	var n dockerNeed
	if need != nil {
		n = dockerNeed{img: need.img, mounts: slices.Clone(need.mounts)}
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
		img, err := d.imageFor(ctx, tool)
		if err != nil {
			return dockerNeed{}, err
		}
		sb, err := d.siblingFor(img, []string{tool}, RunOptions{Workspace: ws})
		if err != nil {
			return dockerNeed{}, err
		}
		n = dockerNeed{img: img, mounts: sb.mounts}
	}
	if prev != nil && prev.ctr != nil {
		for _, m := range prev.ctr.mounts {
			if !slices.ContainsFunc(n.mounts, func(o mount.Mount) bool { return o.Target == m.Target }) {
				n.mounts = append(n.mounts, m)
			}
		}
	}
	return n, nil
}

// startBox starts a Docker box for the workspace ws and waits for its
// agent to listen.
func (d *dockerBackend) startBox(ctx context.Context, ws string, n dockerNeed) (*boxInst, error) {
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
	inst := &boxInst{dir: dir, dirFD: -1, done: done, stderr: newCapped(4 << 10)}
	fail := func(err error) (*boxInst, error) {
		inst.stop()
		return nil, fmt.Errorf("start the box's container: %w", err)
	}
	binds, err := d.boxBinds(dir, agent)
	if err != nil {
		return fail(err)
	}
	if inst.dirFD, err = unix.Open(filepath.Join(dir, "s"), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
		return fail(err)
	}
	create := d.config(n.img, sibling{dir: ws, mounts: append(slices.Clone(n.mounts), binds...)})
	create.Config.Entrypoint = []string{boxAgentPath, "sandbox", "agent", "--socket", boxDirPath + "/" + boxSocket, "--lifeline"}
	create.Config.Cmd = nil
	created, err := d.cli.ContainerCreate(ctx, create)
	if err != nil {
		return fail(err)
	}
	c := &boxContainer{d: d, id: created.ID, img: n.img, mounts: n.mounts, done: done}
	inst.ctr = c
	// Registered before the start, so that the removal is not missed.
	waited := d.cli.ContainerWait(context.WithoutCancel(ctx), c.id, client.ContainerWaitOptions{Condition: container.WaitConditionRemoved})
	go func() {
		select {
		case <-waited.Result:
		case <-waited.Error:
		}
		close(done)
	}()
	att, err := d.cli.ContainerAttach(ctx, c.id, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return fail(err)
	}
	c.att = &att.HijackedResponse
	stdout, w := io.Pipe()
	go func() {
		_, _ = stdcopy.StdCopy(w, inst.stderr, att.Reader)
		w.Close()
	}()
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReaderSize(stdout, 256).ReadString('\n')
		if err == nil && strings.TrimSpace(line) != boxagent.Ready {
			err = fmt.Errorf("the agent said %q", line)
		}
		ready <- err
		_, _ = io.Copy(io.Discard, stdout)
	}()
	if _, err := d.cli.ContainerStart(ctx, c.id, client.ContainerStartOptions{}); err != nil {
		return fail(err)
	}
	werr := waitReady(ctx, ready)
	if werr == nil {
		return inst, nil
	}
	if out := strings.TrimSpace(inst.stderr.text()); out != "" {
		werr = fmt.Errorf("%w: %s", werr, out)
	}
	return fail(werr)
}

// boxBinds makes the box's own files in its host directory dir and returns
// their binds: the socket's directory (dir/s), the hosts file, and core's
// executable agent (or a copy in dir when the engine cannot bind it).
func (d *dockerBackend) boxBinds(dir, agent string) ([]mount.Mount, error) {
	sock := filepath.Join(dir, "s")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return nil, err
	}
	// The agent runs as the sandbox user: the directory is its. Without
	// root, everyone may write it, and dir (0700) keeps them out.
	if err := os.Lchown(sock, 65534, 65534); err != nil {
		if err := os.Chmod(sock, 0o777); err != nil {
			return nil, err
		}
	}
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte(boxHosts), 0o644); err != nil {
		return nil, err
	}
	hostAgent, err := d.hostPath(agent)
	if fi, serr := os.Stat(agent); err != nil || serr != nil || fi.Mode().Perm()&0o005 != 0o005 {
		// Not where the engine sees it (core's image), or not for the
		// sandbox user to run: a copy beside the socket.
		cp := filepath.Join(dir, "core")
		if err := copyExecutable(agent, cp); err != nil {
			return nil, fmt.Errorf("copy core's executable for the box's agent: %w", err)
		}
		if hostAgent, err = d.hostPath(cp); err != nil {
			return nil, err
		}
	}
	var binds []mount.Mount
	for _, b := range []struct {
		path, target string
		readOnly     bool
	}{{sock, boxDirPath, false}, {hosts, "/etc/hosts", true}} {
		host, err := d.hostPath(b.path)
		if err != nil {
			return nil, err
		}
		binds = append(binds, mount.Mount{Type: mount.TypeBind, Source: host, Target: b.target, ReadOnly: b.readOnly})
	}
	return append(binds, mount.Mount{Type: mount.TypeBind, Source: hostAgent, Target: boxAgentPath, ReadOnly: true}), nil
}

// copyExecutable copies the executable src to dst, mode 0755.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// stop ends the container and everything in it, and waits for the engine
// to remove it, a bounded while.
func (c *boxContainer) stop() {
	if c.att != nil {
		c.att.Close() // the lifeline: the agent exits, and the container ends
	}
	ctx, cancel := context.WithTimeout(context.Background(), dockerStopWait)
	defer cancel()
	select {
	case <-c.done:
		return
	default:
	}
	_, err := c.d.cli.ContainerKill(ctx, c.id, client.ContainerKillOptions{Signal: "KILL"})
	if err == nil {
		select {
		case <-c.done:
			return
		case <-ctx.Done():
		}
	}
	// Never started, or the engine is slow to remove it.
	_, _ = c.d.cli.ContainerRemove(context.WithoutCancel(ctx), c.id, client.ContainerRemoveOptions{Force: true})
	select {
	case <-c.done:
	case <-time.After(dockerStopWait):
	}
}
