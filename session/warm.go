package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
)

// WarmupReport is how the build's background warm-up ended.
type WarmupReport struct {
	Seconds  float64 `json:"seconds"`
	Exit     int     `json:"exit"`
	TimedOut bool    `json:"timed_out"`
	// Error says why it stopped early: the session ended, or the sandbox
	// failed.
	Error string `json:"error,omitempty"`
}

// startWarm starts the background warm-up of the workspace's build (the
// module download, then a compile of everything the tests need) when the
// tier runs go commands confined, and says so. No command waits for it:
// it runs at a low CPU priority, and a command builds what it needs
// beside it, sharing the run's build cache. stopWarm stops it.
func (s *run) startWarm(ctx context.Context) {
	if (s.rec.Verify != lang.TierBuild && s.rec.Verify != lang.TierTest) || !s.rec.Sandboxed {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	w := s.env.Runner.Warm(ctx, s.rec.Workspace)
	if w == nil {
		cancel()
		return
	}
	fmt.Fprintln(s.opts.Live.Progress, "warming the build cache in the background (confined: the module download, then a compile of the tests, at a low CPU priority; no command waits for it)…")
	s.warmup = w
	s.warmCancel = cancel
}

// stopWarm stops the warm-up if it still runs, waits for it and tells how
// it ended; the run's end calls it, so that the report has it.
func (s *run) stopWarm() {
	if s.warmCancel == nil {
		return
	}
	s.warmCancel()
	s.warmCancel = nil
	if s.warmup != nil {
		<-s.warmup.Done()
		s.warmEnded(true)
	}
}

// warmEnded says once, when the warm-up has ended, how it ended. It is
// called between turns, so that its line never cuts into another; stopped
// says that the run stopped it (at done, or at its end).
func (s *run) warmEnded(stopped bool) {
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
	r := w.Result()
	s.report.Warmup = &WarmupReport{Seconds: r.Duration.Seconds(), Exit: r.ExitCode, TimedOut: r.TimedOut}
	if r.Err != nil {
		s.report.Warmup.Error = s.scrub(r.Err.Error())
	}
	if line := warmLine(r, stopped); line != "" {
		fmt.Fprintln(s.opts.Live.Progress, line)
	}
}

// warmLine says in words how a warm-up ended; "" when the run stopped it
// (stopped) and it ended for that alone: an ordinary end, no warning,
// which the report still records.
func warmLine(r sandbox.WarmResult, stopped bool) string {
	took := r.Duration.Round(time.Millisecond)
	if r.Duration >= time.Second {
		took = r.Duration.Round(time.Second)
	}
	switch {
	case r.Err != nil && (errors.Is(r.Err, context.Canceled) || stopped && strings.Contains(r.Err.Error(), context.Canceled.Error())):
		return ""
	case r.Err != nil:
		return fmt.Sprintf("warming the build cache stopped after %s: %s", took, clip.Line(r.Err.Error(), 200))
	case r.TimedOut:
		return fmt.Sprintf("warming the build cache ran past its timeout (CORE_SANDBOX_WARM_TIMEOUT) and was stopped after %s; go commands build what they need themselves", took)
	case r.ExitCode != 0:
		return fmt.Sprintf("warmed the build cache in %s (the compile exited %d; the model's own commands show why)", took, r.ExitCode)
	}
	return fmt.Sprintf("warmed the build cache in %s", took)
}
