package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// defaultDockerHost is where the runner mounts the engine's socket.
const defaultDockerHost = "unix:///var/run/docker.sock"

// DockerProbe is what the probe of the Docker backend found.
type DockerProbe struct {
	// Usable is true when a command ran in a sibling container, wrote into
	// its workspace, could not write its .git, and saw no network.
	Usable bool
	// Host is the engine's address (DOCKER_HOST, else the default socket).
	Host string
	// Version is the engine's version.
	Version string
	// Container is core's own container, when core runs in one the engine
	// knows; empty on a host.
	Container string
	// Image is the image sibling containers run: core's own.
	Image string
	// Output is what went wrong, in the engine's or the command's words.
	Output string
	// Cause is why the backend is not usable, with what to do about it.
	Cause string
}

// describe says in words what the Docker probe found.
func (d DockerProbe) describe() string {
	if d.Usable {
		return fmt.Sprintf("the Docker backend is usable (engine %s at %s, image %s)", d.Version, d.Host, shortID(d.Image))
	}
	msg := "the Docker backend is not usable: " + d.Cause
	if d.Output != "" {
		msg += "\nDocker said: " + d.Output
	}
	return msg
}

// probeDocker connects to the engine, finds core's own container and its
// mounts, removes siblings a dead core left behind, and runs the probe
// script in a sibling container with its scratch workspace under dir.
func (s *Sandbox) probeDocker(ctx context.Context, dir string) (*dockerBackend, DockerProbe) {
	res := DockerProbe{Host: orDefault(s.cfg.DockerHost, defaultDockerHost)}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if strings.HasPrefix(res.Host, "unix://") {
		sock := strings.TrimPrefix(res.Host, "unix://")
		if _, err := os.Stat(sock); err != nil {
			res.Cause = fmt.Sprintf("no Docker engine socket at %s (a Docker action has one mounted; elsewhere set DOCKER_HOST)", sock)
			return nil, res
		}
	}
	cli, err := client.New(client.WithHost(res.Host))
	if err != nil {
		res.Cause = fmt.Sprintf("DOCKER_HOST %q is not an engine address: %v", res.Host, err)
		return nil, res
	}
	v, err := cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		res.Cause = fmt.Sprintf("the Docker engine at %s does not answer", res.Host)
		res.Output = err.Error()
		return nil, res
	}
	res.Version = v.Version
	d := &dockerBackend{s: s, cli: cli, host: res.Host}
	self, err := findSelf(ctx, cli)
	if err != nil {
		res.Cause = err.Error()
		return nil, res
	}
	res.Container = self.ID
	switch {
	case s.cfg.DockerImage != "":
		res.Image = s.cfg.DockerImage
	case self.ID != "":
		res.Image = self.Image
	default:
		res.Cause = "core does not run in a container this engine knows, so there is no image of its own to confine commands in: set CORE_SANDBOX_IMAGE to an image with the toolchain"
		return nil, res
	}
	d.image = res.Image
	if self.ID != "" {
		d.mounts = self.Mounts
		d.parent = self.ID
		d.self = self.ID
	} else {
		d.parent = fmt.Sprintf("pid-%d", os.Getpid())
	}
	img, err := cli.ImageInspect(ctx, d.image)
	if err != nil {
		res.Cause = fmt.Sprintf("the sandbox image %s is not on the engine", d.image)
		res.Output = err.Error()
		return nil, res
	}
	d.path = []string{"/usr/local/bin", "/usr/bin", "/bin"}
	if img.Config != nil {
		for _, kv := range img.Config.Env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				d.path = filepath.SplitList(v)
			}
		}
	}
	if s.cfg.Home != "" {
		if _, err := d.hostPath(s.cfg.Home); err != nil {
			res.Cause = fmt.Sprintf("$CORE_HOME %s is %v", s.cfg.Home, strings.TrimPrefix(err.Error(), s.cfg.Home+" is "))
			return nil, res
		}
	}
	removeStale(ctx, cli, d.parent)
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

// removeStale removes sibling containers whose core is gone: those of a
// parent container that no longer runs and, on a host, those of a process
// that is gone. Best effort: a failure here only leaves what was left.
func removeStale(ctx context.Context, cli *client.Client, parent string) {
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", labelSandbox)})
	if err != nil {
		return
	}
	for _, c := range list.Items {
		owner := c.Labels[labelParent]
		if !staleParent(ctx, cli, owner, parent) {
			continue
		}
		_, _ = cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true})
	}
}

func staleParent(ctx context.Context, cli *client.Client, owner, self string) bool {
	if pid, ok := strings.CutPrefix(owner, "pid-"); ok {
		if strings.HasPrefix(self, "pid-") && owner != self {
			_, err := os.Stat(filepath.Join("/proc", pid))
			return os.IsNotExist(err)
		}
		return false
	}
	if owner == "" || owner == self {
		// Another core in this same container may be running them.
		return false
	}
	c, err := cli.ContainerInspect(ctx, owner, client.ContainerInspectOptions{})
	if err != nil {
		return cerrdefs.IsNotFound(err)
	}
	return c.Container.State == nil || !c.Container.State.Running
}
