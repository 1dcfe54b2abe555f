package limit

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cgroup is the pair of cgroups (pids, memory) that one confined command
// runs in. Core makes them under its own cgroup when it may (as root, or
// with a delegated cgroup v2 subtree); a controller it cannot use is left
// out and named by enforced.
type Cgroup struct {
	Pids   string // directory of the pids cgroup, or ""
	memory string // directory of the memory cgroup, or ""
	// cpu is the directory of a background command's cpu cgroup
	// (yield.go), or "".
	cpu string
	v2  bool
}

// CgroupParents are the directories under which core makes the cgroups of
// its commands: its own cgroup of each controller, when it may write there.
// They are found once per Sandbox; finding them reads the mount table.
type CgroupParents struct {
	Pids, Memory, CPU       string
	PidsV2, MemoryV2, CPUV2 bool
}

// FindCgroupParents finds the parents, and sweeps what a killed core left
// in them.
func FindCgroupParents() CgroupParents {
	var p CgroupParents
	p.Pids, p.PidsV2 = cgroupDir("pids")
	p.Memory, p.MemoryV2 = cgroupDir("memory")
	p.CPU, p.CPUV2 = cgroupDir("cpu")
	for _, d := range []string{p.Pids, p.Memory, p.CPU} {
		if d != "" {
			sweep(d)
		}
	}
	return p
}

// NewCgroup makes the cgroups for one command with the limits l; a
// background command's include a cpu cgroup where core may make one
// (yield.go).
func NewCgroup(l Limits, parents CgroupParents, background bool) *Cgroup {
	name := fmt.Sprintf("core-sandbox-%d-%x", os.Getpid(), rand.Uint64())
	cg := &Cgroup{}
	type controller struct {
		name, dir string
		v2        bool
	}
	ctls := []controller{{"pids", parents.Pids, parents.PidsV2}, {"memory", parents.Memory, parents.MemoryV2}}
	if background {
		ctls = append(ctls, controller{"cpu", parents.CPU, parents.CPUV2})
	}
	for _, ctl := range ctls {
		dir, v2 := ctl.dir, ctl.v2
		if dir == "" {
			continue
		}
		d := filepath.Join(dir, name)
		if v2 && (cg.Pids != "" || cg.memory != "") && filepath.Dir(firstNonEmpty(cg.Pids, cg.memory)) == dir {
			d = firstNonEmpty(cg.Pids, cg.memory) // one directory for all
		} else if err := os.Mkdir(d, 0o755); err != nil {
			continue
		}
		var err error
		switch ctl.name {
		case "pids":
			err = writeFile(d, "pids.max", strconv.Itoa(l.Processes))
			if err == nil {
				cg.Pids = d
			}
		case "memory":
			if v2 {
				err = writeFile(d, "memory.max", strconv.FormatInt(l.Memory, 10))
				_ = writeFile(d, "memory.swap.max", "0")
			} else {
				err = writeFile(d, "memory.limit_in_bytes", strconv.FormatInt(l.Memory, 10))
				_ = writeFile(d, "memory.memsw.limit_in_bytes", strconv.FormatInt(l.Memory, 10))
			}
			if err == nil {
				cg.memory = d
			}
		case "cpu":
			if err = cpuWeight(d, v2, false); err == nil {
				cg.cpu = d
			}
		}
		if err != nil && d != cg.Pids && d != cg.memory && d != cg.cpu {
			_ = os.Remove(d)
		}
		cg.v2 = v2
	}
	return cg
}

// sweep removes the empty cgroups that a core process killed in the middle
// of a command left behind: their names carry a pid that no longer runs.
func sweep(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "core-sandbox-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name())) // fails while anything still runs in it
	}
}

// cgroupDir finds the directory of core's own cgroup for a controller, and
// whether it is cgroup v2; "" when there is none core can write.
func cgroupDir(ctl string) (string, bool) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		v2 := parts[0] == "0" && parts[1] == ""
		if !v2 && !contains(strings.Split(parts[1], ","), ctl) {
			continue
		}
		mnt := CgroupMount(string(mounts), ctl, v2)
		if mnt == "" {
			continue
		}
		dir := filepath.Join(mnt, parts[2])
		if v2 {
			ctrls, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
			if err != nil || !contains(strings.Fields(string(ctrls)), ctl) {
				continue
			}
		}
		if syscall.Access(dir, 2 /* W_OK */) != nil {
			continue
		}
		return dir, v2
	}
	return "", false
}

// CgroupMount finds the mount point of a v1 controller's hierarchy, or of the
// v2 hierarchy.
func CgroupMount(mountinfo, ctl string, v2 bool) string {
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		switch {
		case v2 && g[0] == "cgroup2":
			return f[4]
		case !v2 && g[0] == "cgroup" && contains(strings.Split(g[2], ","), ctl):
			return f[4]
		}
	}
	return ""
}

// Add moves a process into the cgroups.
func (cg *Cgroup) Add(pid int) error {
	for _, d := range cg.dirs() {
		if err := writeFile(d, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return fmt.Errorf("move the sandbox into its cgroup %s: %w", d, err)
		}
	}
	return nil
}

// Holds reports whether a process is in all of the cgroups already: as
// many lines of its /proc/PID/cgroup name them as there are.
func (cg *Cgroup) Holds(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	dirs := cg.dirs()
	if err != nil || len(dirs) == 0 {
		return len(dirs) == 0
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(line, "/"+filepath.Base(dirs[0])) {
			n++
		}
	}
	return n >= len(dirs)
}

// Hit names the limit a cgroup refused something for, or "".
func (cg *Cgroup) Hit() string {
	if cg.memory != "" {
		file, key := "memory.oom_control", "oom_kill"
		if cg.v2 {
			file, key = "memory.events", "oom_kill"
		}
		if Counter(filepath.Join(cg.memory, file), key) > 0 {
			return LimitMemory
		}
	}
	if cg.Pids != "" && Counter(filepath.Join(cg.Pids, "pids.events"), "max") > 0 {
		return LimitProcesses
	}
	return ""
}

// CgroupEvents counts what a cgroup refused: OOM kills and forks over the
// pids limit.
type CgroupEvents struct{ OOM, Pids int64 }

// Events returns the counts so far: a box's cgroups outlive its commands,
// so a command's limit is what the counts grew by meanwhile.
func (cg *Cgroup) Events() CgroupEvents {
	var e CgroupEvents
	if cg == nil {
		return e
	}
	if cg.memory != "" {
		file := "memory.oom_control"
		if cg.v2 {
			file = "memory.events"
		}
		e.OOM = Counter(filepath.Join(cg.memory, file), "oom_kill")
	}
	if cg.Pids != "" {
		e.Pids = Counter(filepath.Join(cg.Pids, "pids.events"), "max")
	}
	return e
}

// EventsSince names the limit the cgroup refused something for since
// before, or "".
func (cg *Cgroup) EventsSince(before CgroupEvents) string {
	return cg.Events().Since(before)
}

// Since names the limit whose count grew from before to now, or "".
func (now CgroupEvents) Since(before CgroupEvents) string {
	switch {
	case now.OOM > before.OOM:
		return LimitMemory
	case now.Pids > before.Pids:
		return LimitProcesses
	}
	return ""
}

// Remove kills what is left in the cgroups and removes them. The kernel
// may hold an empty cgroup busy for some milliseconds after its last
// process was reaped; the removal then finishes in the background, so that
// the command's result does not wait for it (a core that exits first leaves
// the empty cgroup to the next one's sweep).
func (cg *Cgroup) Remove() {
	var busy []string
	for _, d := range cg.dirs() {
		if !removeCgroup(d) {
			busy = append(busy, d)
		}
	}
	if len(busy) == 0 {
		return
	}
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for _, d := range busy {
			for !removeCgroup(d) && time.Now().Before(deadline) {
				time.Sleep(500 * time.Microsecond) // the killed are still being released
			}
		}
	}()
}

// removeCgroup kills the processes in a cgroup and removes it; false while
// the kernel still counts something in it.
func removeCgroup(d string) bool {
	if b, err := os.ReadFile(filepath.Join(d, "cgroup.procs")); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	err := os.Remove(d)
	return err == nil || errors.Is(err, os.ErrNotExist)
}

// Enforced lists the limits the kernel enforces through these cgroups.
func (cg *Cgroup) Enforced() []string {
	var out []string
	if cg.Pids != "" {
		out = append(out, LimitProcesses)
	}
	if cg.memory != "" {
		out = append(out, LimitMemory)
	}
	return out
}

func (cg *Cgroup) dirs() []string {
	var out []string
	for _, d := range []string{cg.Pids, cg.memory, cg.cpu} {
		if d != "" && !contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// Counter reads "key N" from a cgroup's flat-keyed file.
func Counter(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

func writeFile(dir, name, value string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
