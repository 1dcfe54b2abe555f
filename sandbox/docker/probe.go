package docker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// DefaultHost is where the runner mounts the engine's socket.
const DefaultHost = "unix:///var/run/docker.sock"

// Probe is what the probe of the Docker backend found.
type Probe struct {
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

// Describe says in words what the Docker probe found.
func (d Probe) Describe() string {
	if d.Usable {
		return fmt.Sprintf("the Docker backend is usable (engine %s at %s, image %s)", d.Version, d.Host, ShortID(d.Image))
	}
	msg := "the Docker backend is not usable: " + d.Cause
	if d.Output != "" {
		msg += "\nDocker said: " + d.Output
	}
	return msg
}

// Connect connects to the engine, finds core's own container and its
// mounts and removes siblings a dead core left behind. The backend it
// returns is not yet Usable: the sandbox runs its probe script in a
// sibling (SelfTest) first.
func Connect(ctx context.Context, s Settings) (*Backend, Probe) {
	res := Probe{Host: s.Host}
	if res.Host == "" {
		res.Host = DefaultHost
	}
	ctx, cancel := context.WithTimeout(ctx, s.ProbeTimeout)
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
	d := &Backend{st: s, cli: cli, host: res.Host}
	self, err := findSelf(ctx, cli)
	if err != nil {
		res.Cause = err.Error()
		return nil, res
	}
	res.Container = self.ID
	switch {
	case s.Image != "":
		res.Image = s.Image
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
	if s.Home != "" {
		if _, err := d.HostPath(s.Home); err != nil {
			res.Cause = fmt.Sprintf("$CORE_HOME %s is %v", s.Home, strings.TrimPrefix(err.Error(), s.Home+" is "))
			return nil, res
		}
	}
	removeStale(ctx, cli, d.parent)
	return d, res
}

// removeStale removes sibling containers whose core is gone: those of a
// parent container that no longer runs and, on a host, those of a process
// that is gone. Best effort: a failure here only leaves what was left.
func removeStale(ctx context.Context, cli *client.Client, parent string) {
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", LabelSandbox)})
	if err != nil {
		return
	}
	for _, c := range list.Items {
		owner := c.Labels[LabelParent]
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

// ShortID is an image's or a container's id as people read it.
func ShortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
