package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/gate"
	"github.com/coreagent/core/sandbox/gocache"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/coreagent/core/sandbox/mask"
	"github.com/coreagent/core/sandbox/output"
	"golang.org/x/sys/unix"
)

// A box's instance (box.go): its bwrap process and agent, started, dialed,
// stopped, and what killed cores left of them swept.

// startBox starts a box of profile p and waits for its agent to listen.
func (s *Sandbox) startBox(ctx context.Context, bwrap string, p profile) (*boxInst, error) {
	s.boxSweep.Do(func() { sweepBoxDirs(os.TempDir()) })
	dir, err := os.MkdirTemp("", fmt.Sprintf("core-box-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("start the box: %w", err)
	}
	inst := &boxInst{dir: dir, dirFD: -1, done: make(chan struct{}), stderr: output.NewCapped(4 << 10)}
	fail := func(err error) (*boxInst, error) {
		inst.stop()
		return nil, fmt.Errorf("start the box: %w", err)
	}
	sock := filepath.Join(dir, "s")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return fail(err)
	}
	if p.hosts == "" {
		p.hosts = filepath.Join(dir, "hosts")
		if err := os.WriteFile(p.hosts, []byte(boxHosts), 0o644); err != nil {
			return fail(err)
		}
	}
	if inst.dirFD, err = unix.Open(sock, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
		return fail(err)
	}
	p.agent, p.boxDir = s.agentExe(), sock
	if srv := s.serveBuildCache([]string{"go"}, p); srv != nil {
		inst.cache = srv
		p.cacheProg, p.cacheSock, p.cacheStage = s.cfg.CacheProg, srv.Socket(), srv.Stage()
		p.cacheShared = gocache.SharedLayer(s.cfg.Home, s.cfg.Repo)
	}
	inst.p = p
	prog, err := s.seccomp(false)
	if err != nil {
		return fail(err)
	}
	for attempt := 0; ; attempt++ {
		err = inst.launch(ctx, bwrap, prog, s.cfg.Limits, s.cgroupParents())
		if err == nil || attempt > 0 || !vanishedMask(inst.stderr.Text()) {
			break
		}
		// A masked path went between the profile and bwrap: the masks
		// again, once.
		inst.p.masks = mask.Args(inst.p.maskScans...)
		inst.stderr = output.NewCapped(4 << 10)
		inst.done = make(chan struct{})
	}
	if err != nil {
		return fail(err)
	}
	return inst, nil
}

// launch starts bwrap for the box and waits for its agent's first line.
func (inst *boxInst) launch(ctx context.Context, bwrap string, prog []byte, limits limit.Limits, parents limit.CgroupParents) error {
	l, err := gate.New(prog, limits, parents, false, nil)
	if err != nil {
		return err
	}
	argv := []string{cacheProgPath, "sandbox", "agent", "--socket", boxDirPath + "/" + boxSocket}
	path, args := l.Gate(bwrap, inst.p.args(argv))
	c := exec.Command(path, args...)
	c.Env = []string{}
	c.Dir = inst.p.workspace
	c.Stderr = inst.stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		l.Close()
		return err
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	c.ExtraFiles = l.Files()
	if err := c.Start(); err != nil {
		l.Close()
		return err
	}
	inst.cmd, inst.l = c, l
	if _, err := l.Release(ctx, c.Process.Pid, ""); err != nil {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		_ = c.Wait()
		close(inst.done)
		inst.l = nil
		return err
	}
	ready := make(chan error, 1)
	read := make(chan struct{})
	go func() {
		line, err := bufio.NewReaderSize(stdout, 256).ReadString('\n')
		if err == nil && strings.TrimSpace(line) != boxagent.Ready {
			err = fmt.Errorf("the agent said %q", line)
		}
		ready <- err
		close(read)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	done := inst.done
	go func() {
		<-read // Wait closes stdout: after the line is read
		_ = c.Wait()
		close(done)
	}()
	werr := waitReady(ctx, ready)
	if werr == nil {
		return nil
	}
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	<-done
	l.Cgroup().Remove()
	inst.l = nil
	if out := strings.TrimSpace(inst.stderr.Text()); out != "" {
		werr = fmt.Errorf("%w: %s", werr, out)
	}
	return werr
}

// waitReady waits for the agent's first line (ready), within
// boxStartTimeout and ctx.
func waitReady(ctx context.Context, ready <-chan error) error {
	t := time.NewTimer(boxStartTimeout)
	defer t.Stop()
	select {
	case err := <-ready:
		if err == nil {
			return nil
		}
		return fmt.Errorf("its agent never listened: %v", err)
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("its agent did not listen within %s", boxStartTimeout)
	}
}

// vanishedMask reports whether bwrap failed to set up a mount on a path
// that no longer exists (a mask's target removed after the profile).
func vanishedMask(out string) bool {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	rest, ok := strings.CutPrefix(line, "bwrap: ")
	if !ok {
		return false
	}
	for _, f := range strings.Fields(rest) {
		f = strings.TrimRight(f, ":,'\"")
		f = strings.TrimLeft(f, "'\"")
		if !strings.HasPrefix(f, "/") {
			continue
		}
		if _, err := os.Lstat(f); errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}

// sweepBoxDirs removes the host directories of boxes whose core was
// killed (their names carry its pid) from base: the system's temporary
// directory, or $CORE_HOME/tmp for the Docker backend's.
func sweepBoxDirs(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "core-box-*"))
	for _, d := range dirs {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), "core-box-"), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue
		}
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			os.RemoveAll(d)
		}
	}
}

// alive reports whether the box's bwrap still runs.
func (inst *boxInst) alive() bool {
	select {
	case <-inst.done:
		return false
	default:
		return true
	}
}

// stop kills everything in the box, waits for bwrap and removes what
// the box had on the host.
func (inst *boxInst) stop() {
	if inst.ctr != nil {
		inst.ctr.Stop()
	}
	if inst.cmd != nil && inst.cmd.Process != nil {
		_ = syscall.Kill(-inst.cmd.Process.Pid, syscall.SIGKILL)
		<-inst.done
	}
	if inst.l != nil && inst.l.Cgroup() != nil {
		inst.l.Cgroup().Remove() // kills what is left in its cgroups
	}
	if inst.cache != nil {
		inst.cache.Close()
	}
	if inst.dirFD >= 0 {
		unix.Close(inst.dirFD)
		inst.dirFD = -1
	}
	os.RemoveAll(inst.dir)
}

// cgroup is the box's cgroup, or nil: a Docker box's limits are its
// container's, the engine's.
func (inst *boxInst) cgroup() *limit.Cgroup {
	if inst.l == nil {
		return nil
	}
	return inst.l.Cgroup()
}

// dial connects to the agent without following a link the box may have
// put in the socket's place.
func (inst *boxInst) dial() (net.Conn, error) {
	fd, err := unix.Openat(inst.dirFD, boxSocket, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("the box's agent: %w", err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil, errors.New("the box's agent: its socket is not a socket")
	}
	c, err := net.Dial("unix", "/proc/self/fd/"+strconv.Itoa(fd))
	if err != nil {
		return nil, fmt.Errorf("the box's agent: %w", err)
	}
	return c, nil
}
