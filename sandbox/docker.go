package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coreagent/core/sandbox/limit"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

// Labels on every sibling container: what it is and whose it is, so that a
// probe can remove the ones a dead core left behind.
const (
	labelSandbox = "core.sandbox"
	labelParent  = "core.sandbox.parent"
)

// sandboxUser is who confined commands run as inside a sibling container:
// nobody, never root.
const sandboxUser = "65534:65534"

// The limits of one sibling container beyond Config.Limits: a container
// (the box, above all, with the run's background servers beside its
// command) holds twice the processes and the memory of one command.
const (
	dockerNoFile = 4096
	dockerTmpfs  = "rw,exec,nosuid,nodev,size=2g,mode=1777" // go test runs its binaries from /tmp
	// dockerConfig is the configuration directory inside ($HOME/.config),
	// a tmpfs of its own that every user may write: the engine makes the
	// directories above a bind's target as root, and the go command's
	// telemetry mode is bound read-only below it (goTelemetryMode).
	dockerConfig      = sandboxHome + "/.config"
	dockerConfigTmpfs = "rw,nosuid,nodev,size=64m,mode=1777"
	dockerStopWait    = 10 * time.Second
)

// wrapper is the sibling's main process. It runs the command in the
// background and reads its own stdin, which core holds open through the
// attach connection (StdinOnce): when core ends, or dies, the connection
// closes, stdin reaches EOF, the command is killed and the main process
// exits, which ends everything in the container and lets the engine remove
// it.
const wrapper = `exec 3<&0
"$@" </dev/null 3<&- &
c=$!
{ cat <&3 >/dev/null; kill -KILL "$c" 2>/dev/null; } &
exec 3<&-
wait "$c"`

// dockerBackend confines commands in sibling containers of core's own image.
type dockerBackend struct {
	s      *Sandbox
	cli    *client.Client
	host   string
	image  string
	path   []string // PATH inside: the image's own
	parent string   // the parent label: core's container, or this host process
	self   string   // core's own container, or empty on a host
	mounts mounts   // core's container path → host path; nil on a host

	imu    sync.Mutex
	images map[string]*image // the toolchain images, by reference
}

// run runs argv in the workspace's box (docker_box.go), or else in a fresh
// sibling container of its ecosystem's image, and waits for it.
func (d *dockerBackend) run(ctx context.Context, argv []string, opts RunOptions) (Result, error) {
	img, err := d.imageFor(ctx, argv[0])
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
	return d.start(ctx, d.config(img, sb), opts)
}

// start creates the sibling, runs it and waits for it.
func (d *dockerBackend) start(ctx context.Context, create client.ContainerCreateOptions, opts RunOptions) (Result, error) {
	defer runtime.KeepAlive(d.s) // its run layer goes with it (gocache/layers.go)
	r := Result{Argv: create.Config.Cmd, Sandboxed: true}
	created, err := d.cli.ContainerCreate(ctx, create)
	if err != nil {
		r.ExitCode = -1
		return r, fmt.Errorf("create the sandbox container: %w", err)
	}
	id := created.ID
	// Whatever happens from here, the container goes: AutoRemove once it ran,
	// this for a container that never started.
	defer func() {
		_, _ = d.cli.ContainerRemove(context.WithoutCancel(ctx), id, client.ContainerRemoveOptions{Force: true})
	}()
	att, err := d.cli.ContainerAttach(ctx, id, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		r.ExitCode = -1
		return r, fmt.Errorf("attach to the sandbox container: %w", err)
	}
	defer att.Close()
	waited := d.cli.ContainerWait(context.WithoutCancel(ctx), id, client.ContainerWaitOptions{Condition: container.WaitConditionRemoved})

	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if opts.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, opts.Timeout)
	}
	defer cancel()
	out := newCapped(opts.OutputLimit)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = stdcopy.StdCopy(out, out, att.Reader)
	}()
	start := time.Now()
	if _, err := d.cli.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		r.ExitCode = -1
		return r, fmt.Errorf("start the sandbox container: %w", err)
	}
	r.ExitCode = -1
	killed := false
	select {
	case w := <-waited.Result:
		r.ExitCode = int(w.StatusCode)
	case err := <-waited.Error:
		if ctx.Err() == nil {
			return r, fmt.Errorf("wait for the sandbox container: %w", err)
		}
	case <-runCtx.Done():
		killed = true
		kctx, kcancel := context.WithTimeout(context.WithoutCancel(ctx), dockerStopWait)
		_, _ = d.cli.ContainerKill(kctx, id, client.ContainerKillOptions{Signal: "KILL"})
		select {
		case <-waited.Result:
		case <-waited.Error:
		case <-kctx.Done():
		}
		kcancel()
	}
	select {
	case <-copied:
	case <-time.After(limit.WaitDelay):
	}
	r.Duration = time.Since(start)
	r.Output, r.Cut = out.String()
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	if killed {
		r.TimedOut = true
		r.Output += fmt.Sprintf("\n[killed: the command ran past its %s timeout]\n", opts.Timeout)
	} else if r.ExitCode == 137 {
		r.ExitCode = -1 // SIGKILL, as a killed process reports on the host
	}
	return r, nil
}

// containerFor builds the sibling's configuration: the profile's guarantees
// expressed as container options.
func (d *dockerBackend) containerFor(img *image, argv []string, opts RunOptions) (client.ContainerCreateOptions, error) {
	sb, err := d.siblingFor(img, argv, opts)
	if err != nil {
		return client.ContainerCreateOptions{}, err
	}
	return d.config(img, sb), nil
}

// siblingFor is what a command of argv gets in a sibling container of
// img, or in the box (docker_box.go): its binds and its environment.
func (d *dockerBackend) siblingFor(img *image, argv []string, opts RunOptions) (sibling, error) {
	var binds []mount.Mount
	bindAt := func(path, target string, readOnly bool) error {
		host, err := d.hostPath(path)
		if err != nil {
			return err
		}
		binds = append(binds, mount.Mount{Type: mount.TypeBind, Source: host, Target: target, ReadOnly: readOnly})
		return nil
	}
	bind := func(path string, readOnly bool) error { return bindAt(path, path, readOnly) }
	p := profile{workspace: opts.Workspace, lang: d.s.cfg.Lang, path: append(append([]string(nil), opts.deps.Path...), img.path...),
		extraEnv: commandEnv(argv[0], opts)}
	bin := ""
	if img.ref == d.image {
		bin = d.s.fetchedToolchain(opts.Workspace)
	}
	if bin != "" {
		p.path = append([]string{bin}, p.path...) // the target's Go (toolchain.go)
	}
	if d.s.cfg.Home != "" {
		var err error
		if p.modCache, err = d.s.modCache(); err != nil {
			return sibling{}, err
		}
		// The run's layer alone: a sibling has no cache program, so
		// nothing it builds is shared with another run (gocache/layers.go).
		if p.buildCache, err = d.s.runs.Run(opts.Workspace); err != nil {
			return sibling{}, err
		}
		if err := shareCaches(p.modCache, p.buildCache); err != nil {
			return sibling{}, err
		}
		// Only the modules the workspace names (gocache/modview.go).
		if err := d.s.withModView(&p, bin); err != nil {
			return sibling{}, err
		}
		if err := bindAt(p.modView, p.modCache, true); err != nil {
			return sibling{}, err
		}
		for _, k := range p.modKeep {
			if err := bind(k, true); err != nil {
				return sibling{}, err
			}
		}
		if err := bind(p.buildCache, false); err != nil {
			return sibling{}, err
		}
	}
	if err := shareWorkspace(opts.Workspace); err != nil {
		return sibling{}, err
	}
	inside := opts.inside()
	if err := bindAt(opts.Workspace, inside, false); err != nil {
		return sibling{}, err
	}
	if _, err := os.Lstat(filepath.Join(opts.Workspace, ".git")); err == nil {
		if err := bindAt(filepath.Join(opts.Workspace, ".git"), filepath.Join(inside, ".git"), true); err != nil {
			return sibling{}, err
		}
	}
	// The go command's telemetry off, as under bwrap (confine.go): go
	// would start a telemetry process of its own beside every command.
	if f := d.s.telemetryFile(); f != "" {
		if err := bindAt(f, goTelemetryMode, true); err != nil {
			return sibling{}, err
		}
	}
	// The dependencies fetched for it (deps.go), read-only, but the
	// directories tools write: a tmpfs each (writable.go).
	for _, b := range opts.deps.Binds {
		if err := bindAt(b.Host, b.Inside, true); err != nil {
			return sibling{}, err
		}
	}
	binds = append(binds, writableMounts(opts.deps.Writable)...)
	return sibling{argv: argv, dir: inside, env: p.env(), mounts: binds, background: opts.Background}, nil
}

// sibling is what one sibling container gets beyond the hardening every
// one has.
type sibling struct {
	argv   []string
	dir    string // working directory inside
	env    []string
	mounts []mount.Mount
	// network is the network mode of a dependency step ("host", or
	// "container:<core's>": core's own network); empty is none.
	network string
	// background gives it the fewest CPU shares (RunOptions.Background).
	background bool
}

// config is a sibling's configuration: nobody, no capabilities, a
// read-only root, its own /tmp, the limits, and no network unless it is a
// dependency step's.
func (d *dockerBackend) config(img *image, sb sibling) client.ContainerCreateOptions {
	limits := d.s.cfg.Limits
	pids := 2 * int64(limits.Processes)
	cpu := int64(limits.CPUTime.Seconds())
	cfg := &container.Config{
		Image:           img.ref,
		Entrypoint:      []string{"/bin/sh", "-c", wrapper, "core-sandbox"},
		Cmd:             sb.argv,
		WorkingDir:      sb.dir,
		User:            sandboxUser,
		Env:             mergeEnv(img.env, sb.env),
		Hostname:        "core-sandbox",
		Labels:          map[string]string{labelSandbox: "1", labelParent: d.parent},
		AttachStdin:     true,
		AttachStdout:    true,
		AttachStderr:    true,
		OpenStdin:       true,
		StdinOnce:       true,
		NetworkDisabled: sb.network == "",
	}
	host := &container.HostConfig{
		NetworkMode:    "none",
		ReadonlyRootfs: true,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		AutoRemove:     true,
		IpcMode:        container.IPCModePrivate,
		CgroupnsMode:   container.CgroupnsModePrivate,
		Mounts:         sb.mounts,
		Tmpfs:          map[string]string{"/tmp": dockerTmpfs, dockerConfig: dockerConfigTmpfs},
		Resources: container.Resources{
			PidsLimit:  &pids,
			Memory:     2 * limits.Memory,
			MemorySwap: 2 * limits.Memory,
			NanoCPUs:   int64(runtime.NumCPU()) * 1e9,
			CPUShares:  cpuShares(sb.background),
			Ulimits: []*container.Ulimit{
				{Name: "nofile", Soft: dockerNoFile, Hard: dockerNoFile},
				{Name: "cpu", Soft: cpu, Hard: cpu + 5}, // as launch.go's
				{Name: "fsize", Soft: limits.FileSize, Hard: limits.FileSize},
			},
		},
	}
	if sb.network != "" {
		host.NetworkMode = container.NetworkMode(sb.network)
		cfg.Hostname = "" // the network's own: the engine refuses both
	}
	return client.ContainerCreateOptions{Config: cfg, HostConfig: host}
}

// mergeEnv is base (an image's environment, a profile's) with own's
// NAME=value pairs over it: a name own sets is own's alone.
func mergeEnv(base, own []string) []string {
	set := map[string]bool{}
	for _, kv := range own {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	var out []string
	for _, kv := range base {
		if name, _, _ := strings.Cut(kv, "="); !set[name] {
			out = append(out, kv)
		}
	}
	return append(out, own...)
}

// hostPath translates a path as core sees it into the path the engine must
// bind: the same path on a host, the host side of core's mount otherwise.
func (d *dockerBackend) hostPath(path string) (string, error) {
	if d.mounts == nil {
		return path, nil
	}
	return d.mounts.host(path)
}

// shareCaches lets the sandbox user read the module cache and own its own
// build cache. Both live under $CORE_HOME, which stays 0700 on the host.
func shareCaches(modCache, buildCache string) error {
	if err := os.Chmod(modCache, 0o755); err != nil {
		return fmt.Errorf("share the module cache with the sandbox: %w", err)
	}
	if err := os.Lchown(buildCache, 65534, 65534); err == nil {
		return ownTree(buildCache, 65534)
	}
	// Not root: no chown, so let everyone write it (under $CORE_HOME).
	if err := os.Chmod(buildCache, 0o777); err != nil {
		return fmt.Errorf("share the sandbox build cache with the sandbox user: %w", err)
	}
	return nil
}

// ownTree gives the sandbox user what of its build cache it does not own:
// a cache restored from elsewhere (actions/cache extracts as the runner's
// user) would otherwise be unwritable inside. Links are not followed. It
// walks only when the cache's first level shows another owner.
func ownTree(dir string, uid int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	foreign := false
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fileOwner(fi) != uid {
			foreign = true
			break
		}
	}
	if !foreign {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, err := e.Info(); err == nil && fileOwner(fi) != uid {
			if err := os.Lchown(p, uid, uid); err != nil {
				return fmt.Errorf("give the sandbox user its build cache: %w", err)
			}
		}
		return nil
	})
}

// fileOwner is a file's uid, or -1.
func fileOwner(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// shareWorkspace makes the workspace (not its .git) writable for the
// sandbox user: directories a+rwx, files a+rw, execute bits untouched (git
// records only those). Links are not followed.
func shareWorkspace(ws string) error {
	return filepath.WalkDir(ws, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Name() == ".git" && p != ws {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		var want os.FileMode
		switch {
		case e.Type()&os.ModeSymlink != 0:
			return nil
		case e.IsDir():
			want = 0o777
		case e.Type().IsRegular():
			want = 0o666
		default:
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&want == want {
			return nil
		}
		if err := os.Chmod(p, fi.Mode().Perm()|want); err != nil {
			return fmt.Errorf("make the workspace writable for the sandbox user: %w", err)
		}
		return nil
	})
}

// errNoMount says that a path core needs to share lies in no directory the
// engine can bind.
var errNoMount = errors.New("not under a directory mounted from the host")

// mounts are core's own container's mounts, container path → host path.
type mounts []container.MountPoint

// host returns the host path of p: the source of the deepest mount whose
// destination holds it.
func (m mounts) host(p string) (string, error) {
	best := -1
	for i, mp := range m {
		if mp.Source == "" || (mp.Type != mount.TypeBind && mp.Type != mount.TypeVolume) {
			continue
		}
		if within(p, mp.Destination) && (best < 0 || len(mp.Destination) > len(m[best].Destination)) {
			best = i
		}
	}
	if best < 0 {
		var dests []string
		for _, mp := range m {
			if mp.Type == mount.TypeBind || mp.Type == mount.TypeVolume {
				dests = append(dests, mp.Destination)
			}
		}
		return "", fmt.Errorf("%s is %w (core's container mounts %s): put CORE_HOME and the workspaces under one of them",
			p, errNoMount, strings.Join(dests, ", "))
	}
	rel, _ := filepath.Rel(m[best].Destination, p)
	return filepath.Join(m[best].Source, rel), nil
}

// cpuShares is a container's CPU weight: the least for a background
// command (RunOptions.Background), which yields the CPUs to the others;
// zero, the engine's default, for the rest.
func cpuShares(background bool) int64 {
	if background {
		return 2
	}
	return 0
}
