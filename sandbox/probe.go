package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/coreagent/core/sandbox/docker"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/manifest"
)

// probeTimeout bounds each command of the live probe: bwrap starts in
// milliseconds. Working out the profile (the walk behind the masks, once
// per machine) is not counted: on a busy machine it may take longer, and
// that says nothing of whether the sandbox works.
const probeTimeout = 20 * time.Second

// ProbeResult is what the live probe found.
type ProbeResult struct {
	// Usable is true when a command ran under the production profile, wrote
	// into its workspace, could not write its .git, and saw no network.
	Usable bool
	// Bwrap is the bwrap executable used, when one was found.
	Bwrap string
	// Version is what bwrap --version printed.
	Version string
	// Output is bwrap's own words when the probe failed.
	Output string
	// Cause is the likely cause of a failure, with what to do about it.
	Cause string
	// Local is set when the probe failed before bwrap ran, on this side
	// (no scratch workspace could be made): bwrap is not to blame.
	Local bool
	// Backend is what confines commands when Usable: BackendBwrap or
	// BackendDocker.
	Backend string
	// Docker is what the Docker backend's probe found, when it was tried.
	Docker *docker.Probe

	backend backend
	// Seccomp is true when the probe saw the seccomp filter loaded inside
	// (the kernel said so, and a new user namespace was refused).
	Seccomp bool
	// Limits says, for each limit, its value and what enforces it here, such
	// as "processes 1024 (cgroup)"; a limit nothing enforces says so.
	Limits []string
}

// Err returns nil when the sandbox is usable and otherwise an error that
// carries bwrap's words and the likely cause.
func (p ProbeResult) Err() error {
	if p.Usable {
		return nil
	}
	if p.Local {
		return errors.New("the sandbox could not be probed: " + p.Cause)
	}
	msg := "the bwrap sandbox is not usable here: " + p.Cause
	if p.Output != "" {
		msg += "\nbwrap said: " + p.Output
	}
	if p.Docker != nil {
		msg += "\n" + p.Docker.Describe()
	}
	return errors.New(msg)
}

// probeScript runs inside the sandbox: write into the workspace, fail to
// write .git, find the seccomp filter loaded and a new user namespace
// refused, then print the network interfaces.
const probeScript = `echo ok > .core-probe || exit 11
if ( : > .git/core-probe ) 2>/dev/null; then echo ".git is writable"; exit 12; fi
while read -r k v; do if [ "$k" = Seccomp: ] && [ "$v" != 2 ]; then echo "no seccomp filter is loaded"; exit 13; fi; done < /proc/self/status
if command -v unshare >/dev/null && unshare -U true 2>/dev/null; then echo "a new user namespace was allowed"; exit 14; fi
cat /proc/net/dev`

// probe runs the production profile once in a scratch workspace made under
// dir.
func (s *Sandbox) probe(ctx context.Context, dir string) ProbeResult {
	var res ProbeResult
	bwrap, err := s.lookPath("bwrap")
	if err != nil {
		res.Cause = "bwrap is not installed (or not on PATH): install the bubblewrap package, e.g. apt-get install bubblewrap"
		return res
	}
	res.Bwrap = bwrap
	vctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if out, err := exec.CommandContext(vctx, bwrap, "--version").CombinedOutput(); err == nil {
		res.Version = strings.TrimSpace(string(out))
	}
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		res.Cause, res.Local = scratchCause(dir, err), true
		return res
	}
	ws, err := os.MkdirTemp(dir, "core-probe-")
	if err != nil {
		res.Cause, res.Local = scratchCause(dir, err), true
		return res
	}
	defer os.RemoveAll(ws)
	if ws, err = filepath.Abs(ws); err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		res.Cause = fmt.Sprintf("cannot resolve the scratch workspace: %v", err)
		return res
	}
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o700); err != nil {
		res.Cause = fmt.Sprintf("cannot make a scratch workspace: %v", err)
		return res
	}
	r, err := s.runConfined(ctx, bwrap, []string{"sh", "-c", probeScript}, RunOptions{Workspace: ws, OutputLimit: 8 << 10, Timeout: probeTimeout})
	if err != nil {
		res.Output = err.Error()
		res.Cause = diagnose(res.Output)
		return res
	}
	out := strings.TrimSpace(r.Output)
	switch {
	case r.TimedOut:
		res.Output = out
		res.Cause = fmt.Sprintf("the confined probe command did not finish within %s", probeTimeout)
	case r.ExitCode != 0:
		res.Output = out
		res.Cause = diagnose(out)
	case !fileHolds(ws, ".core-probe", "ok\n"):
		res.Output = out
		res.Cause = "a sandboxed command could not write into its workspace"
	default:
		res.Seccomp = true
		res.Limits = s.enforcedLimits()
		if ifs := interfaces(out); len(ifs) != 1 || ifs[0] != "lo" {
			res.Output = out
			res.Cause = fmt.Sprintf("the network is visible inside the sandbox (interfaces %s): the network namespace was not applied", strings.Join(ifs, ", "))
			return res
		}
		res.Usable = true
	}
	return res
}

// diagnose names the likely cause of a bwrap failure from its own words.
func diagnose(out string) string {
	l := strings.ToLower(out)
	switch {
	case strings.Contains(l, "no permissions to creat"),
		strings.Contains(l, "creating new namespace failed"),
		strings.Contains(l, "setting up uid map"),
		strings.Contains(l, "uid map") && strings.Contains(l, "permission denied"),
		strings.Contains(l, "unshare") && strings.Contains(l, "operation not permitted"):
		return "user namespaces are refused here. A default Docker container's seccomp profile blocks them " +
			"(run the container with --security-opt seccomp=unconfined, or use a runner VM), and Ubuntu 24.04's " +
			"AppArmor restricts unprivileged ones (sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an " +
			"AppArmor profile that allows bwrap userns); older kernels need sysctl kernel.unprivileged_userns_clone=1"
	case strings.Contains(l, "mount proc"), strings.Contains(l, "/proc"):
		return "mounting a fresh /proc was refused: the container masks /proc " +
			"(Docker: --security-opt systempaths=unconfined, or run on a VM)"
	case strings.Contains(l, "no seccomp filter"), strings.Contains(l, "seccomp"):
		return "bwrap could not load core's seccomp filter (bwrap 0.3 or newer and a kernel with seccomp filters are needed)"
	case strings.Contains(l, "user namespace was allowed"):
		return "the seccomp filter did not refuse a new user namespace inside the sandbox"
	case strings.Contains(l, "loopback"):
		return "setting up the loopback device of the new network namespace was refused"
	case strings.Contains(l, "exit status") || out == "":
		return "bwrap failed without saying why"
	}
	return "bwrap refused the sandbox profile; its words follow"
}

// interfaces lists the network interfaces in /proc/net/dev output.
func interfaces(procNetDev string) []string {
	var ifs []string
	for _, line := range strings.Split(procNetDev, "\n") {
		name, counters, ok := strings.Cut(line, ":")
		if !ok || !allNumbers(strings.Fields(counters)) {
			continue
		}
		ifs = append(ifs, strings.TrimSpace(name))
	}
	return ifs
}

func allNumbers(fields []string) bool {
	for _, f := range fields {
		if strings.Trim(f, "0123456789") != "" {
			return false
		}
	}
	return len(fields) > 0
}

func fileHolds(ws, name, want string) bool {
	b, err := manifest.ReadWorkspaceFile(ws, name, int64(len(want)))
	return err == nil && bytes.Equal(b, []byte(want))
}

// scratchCause says why no scratch workspace could be made under dir, and
// what to do: it lies in the state directory, so that is what to fix.
func scratchCause(dir string, err error) string {
	return fmt.Sprintf("cannot make a scratch workspace under %s (%v): set CORE_HOME to a writable directory", dir, err)
}

// enforcedLimits says what enforces each limit here.
func (s *Sandbox) enforcedLimits() []string {
	l := s.cfg.Limits
	cg := limit.NewCgroup(l, s.cgroupParents(), false)
	byCgroup := cg.Enforced()
	cg.Remove()
	how := func(name, fallback string) string {
		if slices.Contains(byCgroup, name) {
			return fmt.Sprintf("%s %s (cgroup)", name, l.Value(name))
		}
		return fmt.Sprintf("%s %s (%s)", name, l.Value(name), fallback)
	}
	procs := "RLIMIT_NPROC, per user"
	if os.Geteuid() == 0 {
		procs = "NOT enforced: no pids cgroup, and root is exempt from RLIMIT_NPROC"
	}
	return []string{
		how(limit.LimitProcesses, procs),
		how(limit.LimitMemory, "NOT enforced: no memory cgroup core may write"),
		fmt.Sprintf("%s %s (RLIMIT_CPU, per process)", limit.LimitCPUTime, l.Value(limit.LimitCPUTime)),
		fmt.Sprintf("%s %s (RLIMIT_FSIZE)", limit.LimitFileSize, l.Value(limit.LimitFileSize)),
		fmt.Sprintf("%s %s (tmpfs size)", limit.LimitTmp, l.Value(limit.LimitTmp)),
		fmt.Sprintf("%s %s (watched by core)", limit.LimitWorkspace, l.Value(limit.LimitWorkspace)),
	}
}
