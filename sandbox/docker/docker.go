// Package docker is the sandbox's Docker backend: it confines commands in
// sibling containers of core's own image (or an ecosystem's toolchain
// image) through the Docker engine, with the hardening and limits every
// sibling has, runs the workspace's box as a sibling, and runs the
// dependency step's sibling. What a command may see (its binds and its
// environment) is the sandbox's policy: the sandbox builds a Sibling and
// this package turns it into a container.
package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/coreagent/core/sandbox/limit"
)

// Labels on every sibling container: what it is and whose it is, so that a
// probe can remove the ones a dead core left behind.
const (
	LabelSandbox = "core.sandbox"
	LabelParent  = "core.sandbox.parent"
)

// SandboxUser is who confined commands run as inside a sibling container:
// nobody, never root.
const SandboxUser = "65534:65534"

// The limits of one sibling container beyond Config.Limits: a container
// (the box, above all, with the run's background servers beside its
// command) holds twice the processes and the memory of one command.
const (
	NoFile      = 4096
	dockerTmpfs = "rw,exec,nosuid,nodev,size=2g,mode=1777" // go test runs its binaries from /tmp
	// The configuration directory inside (Settings.ConfigDir) is a tmpfs
	// of its own that every user may write: the engine makes the
	// directories above a bind's target as root, and the go command's
	// telemetry mode is bound read-only below it (goTelemetryMode).
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

// Backend confines commands in sibling containers of core's own image.
type Backend struct {
	st     Settings
	cli    *client.Client
	host   string
	image  string
	path   []string // PATH inside: the image's own
	parent string   // the parent label: core's container, or this host process
	self   string   // core's own container, or empty on a host
	mounts mounts   // core's container path → host path; nil on a host

	imu    sync.Mutex
	images map[string]*Image // the toolchain images, by reference
}

// Settings is what the sandbox's configuration says of the backend, and
// where things are inside a sibling (the sandbox's layout).
type Settings struct {
	// Host is the engine's address; empty is the default socket.
	Host string
	// Image overrides the image siblings run (CORE_SANDBOX_IMAGE).
	Image string
	// Home is $CORE_HOME, or empty.
	Home string
	// Limits are a command's; a sibling holds twice its processes and
	// memory.
	Limits limit.Limits
	// ToolchainImages are the images of each ecosystem's commands.
	ToolchainImages map[string]string
	// ProbeTimeout bounds the probe's questions to the engine.
	ProbeTimeout time.Duration
	// ConfigDir is the configuration directory inside ($HOME/.config).
	ConfigDir string
	// AgentPath is where a box (and a dependency step) sees core's
	// executable.
	AgentPath string
	// BoxDir is where a box sees the host directory of its agent's
	// socket, and Socket the socket's name in it.
	BoxDir, Socket string
	// Hosts is a box's own /etc/hosts.
	Hosts string
	// NewOutput keeps at most limit bytes of a command's output.
	NewOutput func(limit int) Output
}

// Output keeps a command's output: its head and tail, and how many bytes
// of the middle it cut.
type Output interface {
	io.Writer
	String() (string, int64)
}

// Bounds are how long a sibling may run and how much of its output is
// kept.
type Bounds struct {
	Timeout     time.Duration
	OutputLimit int
}

// Outcome is how a sibling's command ended.
type Outcome struct {
	Argv      []string
	ExitCode  int
	Output    string
	Cut       int64
	Duration  time.Duration
	Sandboxed bool
	TimedOut  bool
}

// Offline is a backend of image (whose PATH is path) for parent without
// an engine: what builds a sibling's configuration.
func Offline(st Settings, image string, path []string, parent string) *Backend {
	return &Backend{st: st, image: image, path: path, parent: parent}
}

// Image is the image siblings run by default: core's own.
func (d *Backend) Image() string { return d.image }

// Start creates the sibling, runs it and waits for it.
func (d *Backend) Start(ctx context.Context, create client.ContainerCreateOptions, opts Bounds) (Outcome, error) {
	r := Outcome{Argv: create.Config.Cmd, Sandboxed: true}
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
	out := d.st.NewOutput(opts.OutputLimit)
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

// Sibling is what one sibling container gets beyond the hardening every
// one has.
type Sibling struct {
	Argv   []string
	Dir    string // working directory inside
	Env    []string
	Mounts []mount.Mount
	// Network is the network mode of a dependency step ("host", or
	// "container:<core's>": core's own network); empty is none.
	Network string
	// Background gives it the fewest CPU shares (RunOptions.Background).
	Background bool
}

// Config is a sibling's configuration: nobody, no capabilities, a
// read-only root, its own /tmp, the limits, and no network unless it is a
// dependency step's.
func (d *Backend) Config(img *Image, sb Sibling) client.ContainerCreateOptions {
	limits := d.st.Limits
	pids := 2 * int64(limits.Processes)
	cpu := int64(limits.CPUTime.Seconds())
	cfg := &container.Config{
		Image:           img.Ref,
		Entrypoint:      []string{"/bin/sh", "-c", wrapper, "core-sandbox"},
		Cmd:             sb.Argv,
		WorkingDir:      sb.Dir,
		User:            SandboxUser,
		Env:             MergeEnv(img.Env, sb.Env),
		Hostname:        "core-sandbox",
		Labels:          map[string]string{LabelSandbox: "1", LabelParent: d.parent},
		AttachStdin:     true,
		AttachStdout:    true,
		AttachStderr:    true,
		OpenStdin:       true,
		StdinOnce:       true,
		NetworkDisabled: sb.Network == "",
	}
	host := &container.HostConfig{
		NetworkMode:    "none",
		ReadonlyRootfs: true,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		AutoRemove:     true,
		IpcMode:        container.IPCModePrivate,
		CgroupnsMode:   container.CgroupnsModePrivate,
		Mounts:         sb.Mounts,
		Tmpfs:          map[string]string{"/tmp": dockerTmpfs, d.st.ConfigDir: dockerConfigTmpfs},
		Resources: container.Resources{
			PidsLimit:  &pids,
			Memory:     2 * limits.Memory,
			MemorySwap: 2 * limits.Memory,
			NanoCPUs:   int64(runtime.NumCPU()) * 1e9,
			CPUShares:  cpuShares(sb.Background),
			Ulimits: []*container.Ulimit{
				{Name: "nofile", Soft: NoFile, Hard: NoFile},
				{Name: "cpu", Soft: cpu, Hard: cpu + 5}, // as sandbox/gate's
				{Name: "fsize", Soft: limits.FileSize, Hard: limits.FileSize},
			},
		},
	}
	if sb.Network != "" {
		host.NetworkMode = container.NetworkMode(sb.Network)
		cfg.Hostname = "" // the network's own: the engine refuses both
	}
	return client.ContainerCreateOptions{Config: cfg, HostConfig: host}
}

// MergeEnv is base (an image's environment, a profile's) with own's
// NAME=value pairs over it: a name own sets is own's alone.
func MergeEnv(base, own []string) []string {
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

// HostPath translates a path as core sees it into the path the engine must
// bind: the same path on a host, the host side of core's mount otherwise.
func (d *Backend) HostPath(path string) (string, error) {
	if d.mounts == nil {
		return path, nil
	}
	return d.mounts.host(path)
}

// ShareCaches lets the sandbox user read the module cache and own its own
// build cache. Both live under $CORE_HOME, which stays 0700 on the host.
func ShareCaches(modCache, buildCache string) error {
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

// ShareWorkspace makes the workspace (not its .git) writable for the
// sandbox user: directories a+rwx, files a+rw, execute bits untouched (git
// records only those). Links are not followed.
func ShareWorkspace(ws string) error {
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

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
