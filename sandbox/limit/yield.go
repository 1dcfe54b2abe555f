package limit

import (
	"strconv"
	"sync"
)

// A background command (RunOptions.Background: the warm-up's compile and
// its module download) is work done ahead of need. Where core may make a
// cpu cgroup for it (as root, or with the cpu controller delegated on
// cgroup v2), it runs in one of its own, which yields the CPUs by how
// much someone waits:
//
//   - while a command someone waits for runs confined (a foreground
//     command of the same Sandbox: Run, Verify, the box's commands), the
//     cgroup is idle (cpu.idle): it runs only on CPUs that nothing else
//     wants, and a waking foreground process takes its CPU at once, as a
//     SCHED_IDLE task's. At nice 10 alone it still took about a tenth of
//     a CPU beside each busy one: the first command of a session, a
//     narrow go test beside the warm-up of the whole module, ran about a
//     fifth longer beside it;
//   - between foreground commands it gets nice 10's weight (cpu.shares
//     110, cpu.weight.nice 10), as without the cgroup: on a machine busy
//     with others' work, it is not starved for good, only for as long as
//     a foreground command of its own Sandbox runs (each bounded by
//     its timeout).
//
// Without such a cgroup, a background command runs at nice 10, and so does
// its session (sandbox/gate).

// BackgroundShares is nice 10's weight for a cgroup v1 cpu.shares.
const BackgroundShares = 110

// cpuWeight sets a cpu cgroup's share of the CPUs: idle, or nice 10's
// weight. A cgroup made idle forgets its weight, which is written again
// when it stops being idle.
func cpuWeight(dir string, v2, idle bool) error {
	if idle {
		return writeFile(dir, "cpu.idle", "1")
	}
	if err := writeFile(dir, "cpu.idle", "0"); err != nil {
		return err
	}
	if v2 {
		return writeFile(dir, "cpu.weight.nice", strconv.Itoa(BackgroundNice))
	}
	return writeFile(dir, "cpu.shares", strconv.Itoa(BackgroundShares))
}

// Yielder tracks a Sandbox's foreground commands and its background
// commands' cpu cgroups: the latter are idle while any of the former
// runs. Safe for concurrent use.
type Yielder struct {
	mu         sync.Mutex
	foreground int              // foreground commands running
	background map[*Cgroup]bool // background commands' cgroups with a cpu cgroup
}

// Start notes a foreground command's start; the returned func notes its
// end.
func (y *Yielder) Start() (end func()) {
	y.mu.Lock()
	y.foreground++
	if y.foreground == 1 {
		y.setLocked(true)
	}
	y.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			y.mu.Lock()
			y.foreground--
			if y.foreground == 0 {
				y.setLocked(false)
			}
			y.mu.Unlock()
		})
	}
}

// Add makes a background command's cpu cgroup yield, idle at once when a
// foreground command runs; the returned func forgets it.
func (y *Yielder) Add(cg *Cgroup) (drop func()) {
	if cg == nil || cg.cpu == "" {
		return func() {}
	}
	y.mu.Lock()
	if y.background == nil {
		y.background = map[*Cgroup]bool{}
	}
	y.background[cg] = true
	if y.foreground > 0 {
		_ = cpuWeight(cg.cpu, cg.v2, true)
	}
	y.mu.Unlock()
	return func() {
		y.mu.Lock()
		delete(y.background, cg)
		y.mu.Unlock()
	}
}

// setLocked makes every background cgroup idle, or gives it its weight
// again. A cgroup that cannot be set keeps what it had: a priority costs
// time, not safety.
func (y *Yielder) setLocked(idle bool) {
	for cg := range y.background {
		_ = cpuWeight(cg.cpu, cg.v2, idle)
	}
}

// Tracked counts the background commands' cgroups the yielder still holds.
func (y *Yielder) Tracked() int {
	y.mu.Lock()
	defer y.mu.Unlock()
	return len(y.background)
}
