package docker

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

	"github.com/coreagent/core/sandbox/boxagent"
)

// The Docker backend's box (sandbox/box.go): one sibling container per workspace,
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

// BoxContainer is a Docker box's sibling container.
type BoxContainer struct {
	d      *Backend
	id     string
	Image  *Image
	Mounts []mount.Mount // the command binds it holds (not the box's own)
	att    *client.HijackedResponse
	done   <-chan struct{} // the engine removed it
}

// ID is the container's id.
func (c *BoxContainer) ID() string { return c.id }

// Need is what a command asks of a Docker box: its image and binds.
type Need struct {
	Image  *Image
	Mounts []mount.Mount
}

// StartBox starts a Docker box for the workspace ws of n's image and
// binds and its own binds (BoxBinds), its agent's errors to stderr, and
// returns it with the agent's first line (ready: nil when it listens).
// done closes when the engine removed it. The container is returned, to
// be stopped, whenever it was created.
func (d *Backend) StartBox(ctx context.Context, ws string, n Need, binds []mount.Mount, stderr io.Writer, done chan struct{}) (*BoxContainer, <-chan error, error) {
	create := d.Config(n.Image, Sibling{Dir: ws, Mounts: append(slices.Clone(n.Mounts), binds...)})
	create.Config.Entrypoint = []string{d.st.AgentPath, "sandbox", "agent", "--socket", d.st.BoxDir + "/" + d.st.Socket, "--lifeline"}
	create.Config.Cmd = nil
	created, err := d.cli.ContainerCreate(ctx, create)
	if err != nil {
		return nil, nil, err
	}
	c := &BoxContainer{d: d, id: created.ID, Image: n.Image, Mounts: n.Mounts, done: done}
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
		return c, nil, err
	}
	c.att = &att.HijackedResponse
	stdout, w := io.Pipe()
	go func() {
		_, _ = stdcopy.StdCopy(w, stderr, att.Reader)
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
		return c, nil, err
	}
	return c, ready, nil
}

// BoxBinds makes the box's own files in its host directory dir and returns
// their binds: the socket's directory (dir/s), the hosts file, and core's
// executable agent (or a copy in dir when the engine cannot bind it).
func (d *Backend) BoxBinds(dir, agent string) ([]mount.Mount, error) {
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
	if err := os.WriteFile(hosts, []byte(d.st.Hosts), 0o644); err != nil {
		return nil, err
	}
	hostAgent, err := d.HostPath(agent)
	if fi, serr := os.Stat(agent); err != nil || serr != nil || fi.Mode().Perm()&0o005 != 0o005 {
		// Not where the engine sees it (core's image), or not for the
		// sandbox user to run: a copy beside the socket.
		cp := filepath.Join(dir, "core")
		if err := copyExecutable(agent, cp); err != nil {
			return nil, fmt.Errorf("copy core's executable for the box's agent: %w", err)
		}
		if hostAgent, err = d.HostPath(cp); err != nil {
			return nil, err
		}
	}
	var binds []mount.Mount
	for _, b := range []struct {
		path, target string
		readOnly     bool
	}{{sock, d.st.BoxDir, false}, {hosts, "/etc/hosts", true}} {
		host, err := d.HostPath(b.path)
		if err != nil {
			return nil, err
		}
		binds = append(binds, mount.Mount{Type: mount.TypeBind, Source: host, Target: b.target, ReadOnly: b.readOnly})
	}
	return append(binds, mount.Mount{Type: mount.TypeBind, Source: hostAgent, Target: d.st.AgentPath, ReadOnly: true}), nil
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

// Stop ends the container and everything in it, and waits for the engine
// to remove it, a bounded while.
func (c *BoxContainer) Stop() {
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
