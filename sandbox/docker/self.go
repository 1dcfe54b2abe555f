package docker

import (
	"context"
	"fmt"
	"os"
	"regexp"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// self is core's own container, as the engine records it.
type self struct {
	ID     string
	Image  string
	Mounts mounts
}

// containerID matches a full container id in /proc/self/mountinfo (the
// engine binds /etc/hostname, /etc/hosts and /etc/resolv.conf from
// .../containers/<id>/) and /proc/self/cgroup (.../docker/<id>, or
// docker-<id>.scope).
var containerID = regexp.MustCompile(`(?:containers/|docker[/-])([0-9a-f]{64})\b`)

// InContainer reports whether core runs in a container.
func InContainer() bool {
	if _, err := os.Stat("/.dockerenv"); err == nil {
		return true
	}
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	cgroup, _ := os.ReadFile("/proc/self/cgroup")
	return len(SelfCandidates(string(mountinfo), string(cgroup), "")) > 0
}

// SelfCandidates lists the ids core's container may have, most telling
// first: from mountinfo, from the cgroup, then the hostname (which the
// engine sets to the short id unless the container shares the host's
// network or names its own host).
func SelfCandidates(mountinfo, cgroup, hostname string) []string {
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, src := range []string{mountinfo, cgroup} {
		for _, m := range containerID.FindAllStringSubmatch(src, -1) {
			add(m[1])
		}
	}
	add(hostname)
	return ids
}

// findSelf asks the engine for core's own container. On a host (no
// candidate the engine knows) it returns a zero self and no error.
func findSelf(ctx context.Context, cli *client.Client) (self, error) {
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	cgroup, _ := os.ReadFile("/proc/self/cgroup")
	hostname, _ := os.Hostname()
	for _, id := range SelfCandidates(string(mountinfo), string(cgroup), hostname) {
		c, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
		if err != nil {
			if cerrdefs.IsNotFound(err) {
				continue
			}
			return self{}, fmt.Errorf("ask the engine about core's own container %s: %w", id, err)
		}
		if c.Container.State == nil || !c.Container.State.Running {
			continue
		}
		return self{ID: c.Container.ID, Image: c.Container.Image, Mounts: c.Container.Mounts}, nil
	}
	return self{}, nil
}
