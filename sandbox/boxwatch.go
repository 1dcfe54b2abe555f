package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/coreagent/core/sandbox/boxagent"
	"github.com/coreagent/core/sandbox/gate"
	"github.com/coreagent/core/sandbox/limit"
)

// A background process (Box.Start) is held to the limits of a foreground
// command: the kernel enforces memory and processes for the whole box
// (its cgroups), and core watches the workspace's growth. What a
// foreground command learns at its end, a background process learns while
// it runs: once it breaks a limit, core stops it (its runner ends every
// process under it) and its output ends with which limit, by how much,
// and how to raise it.
//
// The box's cgroups count what the kernel refused the whole box, not one
// process: a count that grew while no foreground command ran in the box
// is charged to the background processes then running, each of which is
// stopped; one that grew while a foreground command ran is that command's
// (Box.Run reports it) unless the OOM killer ended the background process
// itself. The Docker backend's box has no cgroup core reads: its agent
// names the limit when the process ends (boxagent.Exit.Limit).

// watchPoll is how often the box's cgroup counts are read for a running
// background process.
const watchPoll = 250 * time.Millisecond

// watch holds pr to the box's limits until it ends; before is what the
// box's cgroups had counted when it started.
func (b *Box) watch(pr *Process, inst *boxInst, before limit.CgroupEvents) {
	limits := b.s.cfg.Limits
	l := gate.Watch(limits)
	go l.WatchWorkspace(context.Background(), pr.done, func() {
		baseline, _ := l.Baseline()
		grew := gate.TreeSize(b.ws) - baseline
		pr.breach(limit.LimitWorkspace, fmt.Sprintf("\n[core stopped this background command: the workspace grew by %s while it ran, past the limit of %s]", sizeText(grew), limit.FormatSize(limits.WorkspaceGrowth))+limit.LimitNote(limit.LimitWorkspace, limits))
	}, b.ws)
	cg := inst.cgroup()
	if cg == nil {
		return
	}
	t := time.NewTicker(watchPoll)
	defer t.Stop()
	for {
		select {
		case <-pr.done:
			return
		case <-t.C:
		}
		if inst.active.Load() > 0 {
			before = cg.Events() // a foreground command's to report
			continue
		}
		if name := cg.EventsSince(before); name != "" {
			pr.breach(name, "\n[core stopped this background command: the box hit its limit while it ran]"+limit.LimitNote(name, limits))
			return
		}
	}
}

// breach stops a running process for the limit called name, with note at
// the end of its output; the first limit is the one it keeps.
func (p *Process) breach(name, note string) {
	p.mu.Lock()
	if p.limit != "" || !p.running {
		p.mu.Unlock()
		return
	}
	p.limit = name
	p.mu.Unlock()
	p.out.Write([]byte(note))
	// A stop, not a cut connection: the process ends once the agent says
	// that nothing of it is left, so that what it held (processes, memory)
	// is free for the next command. An agent that does not answer in time
	// gets its connection cut.
	ctx, cancel := context.WithTimeout(context.Background(), boxagent.StopGrace+limit.WaitDelay+boxGrace)
	defer cancel()
	_ = p.Stop(ctx)
}

// ended notes how the process ended: exit as the agent said, and the
// box's cgroup counts at its start (before) and now.
func (p *Process) ended(exit boxagent.Exit, err error, before, now limit.CgroupEvents, limits limit.Limits) {
	name := ""
	switch {
	case exit.Limit != "":
		name = exit.Limit // the Docker box's agent measured it
	case exit.Code == 128+9 && now.OOM > before.OOM:
		name = limit.LimitMemory // the OOM killer ended it
	}
	p.mu.Lock()
	if name != "" && p.limit == "" {
		p.limit = name
		p.mu.Unlock()
		p.out.Write([]byte("\n[the box hit its limit while this background command ran, which ended it]" + limit.LimitNote(name, limits)))
		p.mu.Lock()
	}
	p.running, p.code, p.err = false, exit.Code, err
	p.mu.Unlock()
}

// Limit names the limit core stopped the process for (limit.LimitWorkspace,
// limit.LimitMemory, limit.LimitProcesses), or "".
func (p *Process) Limit() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.limit
}

// sizeText renders a size for people: MiB with a decimal, or bytes.
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
