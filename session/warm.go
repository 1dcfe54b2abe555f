package session

import (
	"context"
	"fmt"
	"time"

	"github.com/coreagent/core/sandbox"
)

// startWarm starts the background warm-up of the workspace's build (the
// module download, then a compile of everything the tests need) when the
// tier runs go commands confined, and says so. The model's first go
// command waits for it, with its --shell-timeout counted only after the
// wait. The returned func stops the warm-up, if it still runs, and waits
// for it.
func (s *run) startWarm(ctx context.Context) (stop func()) {
	if (s.rec.Verify != sandbox.TierBuild && s.rec.Verify != sandbox.TierTest) || !s.rec.Sandboxed {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	w := s.env.Runner.Warm(ctx, s.rec.Workspace)
	if w == nil {
		cancel()
		return func() {}
	}
	fmt.Fprintln(s.opts.Progress, "warming the build cache in the background (confined: the module download, then a compile of the tests; go commands wait for it, not counted against --shell-timeout)…")
	s.warmup = w
	return func() {
		cancel()
		<-w.Done()
		s.warmEnded()
	}
}

// warmEnded says once, when the warm-up has ended, how it ended. It is
// called between turns, so that its line never cuts into another.
func (s *run) warmEnded() {
	w := s.warmup
	if w == nil {
		return
	}
	select {
	case <-w.Done():
	default:
		return
	}
	s.warmup = nil
	fmt.Fprintln(s.opts.Progress, warmLine(w.Result()))
}

// warmLine says in words how a warm-up ended.
func warmLine(r sandbox.WarmResult) string {
	took := r.Duration.Round(time.Millisecond)
	if r.Duration >= time.Second {
		took = r.Duration.Round(time.Second)
	}
	switch {
	case r.Err != nil:
		return fmt.Sprintf("warming the build cache stopped after %s: %s", took, oneLine(r.Err.Error(), 200))
	case r.TimedOut:
		return fmt.Sprintf("warming the build cache ran past its timeout (CORE_SANDBOX_WARM_TIMEOUT) and was stopped after %s; go commands no longer wait for it", took)
	case r.ExitCode != 0:
		return fmt.Sprintf("warmed the build cache in %s (the compile exited %d; the model's own commands show why)", took, r.ExitCode)
	}
	return fmt.Sprintf("warmed the build cache in %s", took)
}
