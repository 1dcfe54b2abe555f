package sandbox

import "strings"

// hint names what is really wrong when bwrap failed, from its words and
// from where core runs, more precisely than the profile's own diagnosis:
// the same refusal means Docker's seccomp profile inside a container and a
// kernel setting on a host, and Ubuntu's AppArmor restriction shows as a uid
// map or loopback failure. It returns "" when it knows no better.
func hint(out string, inContainer bool) string {
	l := strings.ToLower(out)
	switch {
	case strings.Contains(l, "setting up uid map") && strings.Contains(l, "permission denied"),
		strings.Contains(l, "loopback: failed rtm_newaddr"):
		return "user namespaces are refused: Ubuntu's AppArmor restriction on unprivileged user namespaces " +
			"(Ubuntu 23.10 and later, GitHub's ubuntu-24.04 runners) lets bwrap create the namespace but not use it. " +
			"Run sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or give bwrap an AppArmor profile " +
			"that allows userns"
	case strings.Contains(l, "no permissions to creat"),
		strings.Contains(l, "creating new namespace failed"),
		strings.Contains(l, "unshare") && strings.Contains(l, "operation not permitted"):
		if inContainer {
			return "user namespaces are refused: core runs in a container whose seccomp profile (Docker's default) " +
				"refuses new namespaces, and a Docker action cannot change its container's options. With the engine's " +
				"socket mounted (as the runner mounts it) core confines commands in sibling containers instead"
		}
		return "user namespaces are refused: the kernel does not allow unprivileged ones here " +
			"(sysctl kernel.unprivileged_userns_clone=1 on Debian kernels; user.max_user_namespaces must be above 0)"
	}
	return ""
}
