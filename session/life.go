package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/heartbeat"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/prompt"
	"github.com/coreagent/core/session/protocol"
	"github.com/coreagent/core/session/state"
)

// The idle timeouts: how long a landed run waits for the next message. A
// run a person started waits IdleAttended; one a trigger started (the
// Action, the bot) IdleTriggered, and IdleAttended once a person has
// written to it. Entry points choose; --idle-timeout overrides.
const (
	IdleAttended  = 20 * time.Minute
	IdleTriggered = 5 * time.Minute
	// DefaultPollEvery is how often an idle run calls Live.Poll.
	DefaultPollEvery = 30 * time.Second
)

// Live is how a run is controlled while it runs and idles, and how it
// reports as it goes.
type Live struct {
	// Control, when set, is how the caller hands the run messages,
	// interrupts and stops (the bot, the Action); the run makes its own
	// otherwise. Either way the command line reaches it through the
	// session's socket.
	Control *live.Control
	// Poll, when set, is called before each turn and, while the run is
	// idle, every PollEvery: the Action reads new comments in it and hands
	// them to Control.
	Poll      func(ctx context.Context)
	PollEvery time.Duration
	// IdleTimeout is how long a run that landed waits, idle, for the next
	// message before it completes; zero completes it at once, unless
	// AskNext: then the prompt waits with no limit. IdleAfterMessage, when longer,
	// replaces it once a person has sent the run a message (a run a
	// trigger started moves onto IdleAttended).
	IdleTimeout      time.Duration
	IdleAfterMessage time.Duration
	// Interactive asks before landing, at Services.Input, and implies
	// AskNext.
	Interactive bool
	// AskNext: the idle run asks for the next instruction at
	// Services.Input (a person at a terminal); /exit or the input's end
	// completes it.
	AskNext bool
	// OnState, when set, is called each time the run moves to a state
	// that is not its end (starting, active, idle), with the pull request
	// it landed on so far (the Action keeps its status comment's headline
	// current from it).
	OnState func(status state.Status, prURL string)
	// OnStep, when set, is called after every turn with the turn and the
	// turn limit (the Action edits its status comment from it).
	OnStep func(step Step, maxTurns int)
	// Heartbeat is how often a long turn says it still runs; zero means
	// heartbeat.Default.
	Heartbeat time.Duration
	// Observer, when set, watches the run's events from outside its
	// files: the OpenTelemetry exporter (package telemetry), set by setup
	// when the standard variables ask for it.
	Observer live.Observer
	// Progress receives one line per turn, a turn's line when a command
	// starts, a heartbeat every Heartbeat while a turn takes long, and the
	// output of commands a person approved; nil discards.
	Progress io.Writer
}

// withDefaults fills the zero values.
func (l Live) withDefaults() Live {
	if l.Interactive {
		l.AskNext = true
	}
	if l.PollEvery <= 0 {
		l.PollEvery = DefaultPollEvery
	}
	if l.Control == nil {
		l.Control = live.NewControl()
	}
	if l.Progress == nil {
		l.Progress = io.Discard
	}
	if l.Heartbeat <= 0 {
		l.Heartbeat = heartbeat.Default
	}
	return l
}

// moveTo moves the run to a state that is not its end: the record is
// saved durably, the event log and the control told.
func (s *run) moveTo(to state.Status) error {
	if err := s.rec.transition(to, s.opts.Services.Now()); err != nil {
		return err
	}
	err := s.opts.Services.Store.save(s.rec, s.scrubber)
	// The record first, then the control and the caller, then the event
	// log: who sees the new state in one finds it in those before.
	s.ctl.SetStatus(to)
	if s.opts.Live.OnState != nil {
		s.opts.Live.OnState(to, s.rec.PRURL)
	}
	tokens, cost := s.spentSoFar()
	s.events.Add(live.Event{Kind: live.EventState, Status: to, Progress: live.Progress{Goal: s.report.Goal, Tokens: tokens, CostUSD: cost}})
	return err
}

// spentSoFar is what this run has spent, for its events: its tokens,
// and their cost (nil with no price).
func (s *run) spentSoFar() (int, *float64) {
	var cost *float64
	if c := s.report.CostUSD; c != nil {
		v := *c
		cost = &v
	}
	return s.report.Usage.TotalTokens, cost
}

// readMessages moves the messages people sent into the transcript, each
// with who sent it, and reports whether there were any.
func (s *run) readMessages(entries *[]budget.Entry) (bool, error) {
	ms := s.ctl.Take()
	for _, m := range ms {
		s.events.Add(live.Event{Kind: live.EventMessage, From: m.From, Text: m.Text})
		fmt.Fprintf(s.opts.Live.Progress, "message from %s: %s\n", m.From, clip.Line(s.scrub(m.Text), 100))
		text := fmt.Sprintf("Message from %s:\n%s", m.From, strings.TrimSpace(m.Text))
		if !s.opts.Inference.Think {
			text += "\n\n" + protocol.NoThink
		}
		if err := s.append(entries, budget.Entry{Role: model.RoleUser, Content: text, Kind: budget.KindInstruction}); err != nil {
			return false, err
		}
	}
	return len(ms) > 0, nil
}

// idleTimeout is how long the idle run waits now.
func (s *run) idleTimeout() time.Duration {
	if s.opts.Live.IdleAfterMessage > s.opts.Live.IdleTimeout && s.ctl.HeardFromPerson() {
		return s.opts.Live.IdleAfterMessage
	}
	return s.opts.Live.IdleTimeout
}

// idle waits, in state idle, for the next message: from the control (the
// socket, the bot, the comments Poll finds) or, on a terminal, a line
// typed at the prompt. It reports false when the run should end: its idle
// timeout passed, the terminal's input ended or said /exit, a person
// finished it (live.Control.Finish: Ctrl-C at the terminal), or ctx ended.
// Queued messages are taken before anything waits, even with no timeout.
func (s *run) idle(ctx context.Context) bool {
	if s.ctl.Finishing() {
		return false
	}
	if len(s.ctl.Peek()) > 0 {
		return true
	}
	timeout := s.idleTimeout()
	if timeout <= 0 && !s.opts.Live.AskNext {
		return false
	}
	var lines <-chan string
	if s.opts.Live.AskNext && s.opts.Services.Input != nil {
		fmt.Fprint(s.opts.Services.Output, "next instruction (/exit to stop)> ")
		lines = s.lines()
	} else {
		fmt.Fprintf(s.opts.Live.Progress, "idle: waiting %s for a message (core session send %s \"…\")\n", timeout, s.rec.ID)
	}
	var expire <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expire = timer.C
	}
	poll := time.NewTicker(s.opts.Live.PollEvery)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-expire:
			fmt.Fprintf(s.opts.Live.Progress, "idle for %s: the run completes\n", timeout)
			return false
		case line, ok := <-lines:
			if !ok || strings.TrimSpace(line) == "/exit" {
				return false
			}
			if strings.TrimSpace(line) == "" {
				fmt.Fprint(s.opts.Services.Output, "next instruction (/exit to stop)> ")
				continue
			}
			if _, err := s.ctl.Send(live.Message{From: live.LocalUser(os.Getuid()), Text: line}); err != nil {
				return false
			}
			return true
		case <-s.ctl.Wake():
			if s.ctl.Finishing() {
				return false
			}
			if len(s.ctl.Peek()) > 0 {
				return true
			}
		case <-poll.C:
			if s.opts.Live.Poll != nil {
				s.opts.Live.Poll(ctx)
			}
		}
	}
}

// showLanding prints, before an idle run waits, where the work it has
// just landed went and the contract's verdict with its table: a person
// sees them before the prompt, not only in the summary at the end. A run
// that completes at done prints them in its summary alone.
func (s *run) showLanding() {
	if s.idleTimeout() <= 0 && !s.opts.Live.AskNext {
		return
	}
	w := s.opts.Live.Progress
	if s.opts.Live.AskNext && s.opts.Services.Input != nil {
		w = s.opts.Services.Output // with the prompt it comes before
	}
	r := *s.report
	r.Branch, r.Commit, r.PRURL, r.Landed = s.rec.Branch, s.rec.Commit, s.rec.PRURL, s.rec.Landed
	r.WriteLanding(w)
}

// lines returns the terminal's lines (prompt.Lines), read for the whole
// run and ended with it (stopLines).
func (s *run) lines() <-chan string {
	if s.input == nil {
		s.input = prompt.New(s.opts.Services.Input)
	}
	return s.input.C()
}

// stopLines ends the terminal's reader, if it started.
func (s *run) stopLines() {
	if s.input != nil {
		s.input.Stop()
	}
}

// interrupted ends a turn a person interrupted: the work stays in the
// workspace, unlanded, and the run goes idle.
func (s *run) interruptedBy(from string) outcome {
	s.events.Add(live.Event{Kind: live.EventInterrupt, From: from})
	fmt.Fprintf(s.opts.Live.Progress, "interrupted by %s: the work stays in %s\n", from, s.rec.Workspace)
	s.unlanded = true
	return outcome{status: state.Idle, interrupted: true}
}

// endIdle ends a run whose idle wait is over: completed, or partial when
// an interrupt left work that never landed, or cancelled when it was
// stopped.
func (s *run) endIdle(ctx context.Context) *Report {
	if ctx.Err() != nil {
		return s.end(state.Cancelled, "", s.cancelReason(ctx))
	}
	if s.unlanded {
		return s.end(state.Partial, "", fmt.Errorf("interrupted: the work stays in the workspace, not landed (core session resume %s continues it)", s.rec.ID))
	}
	return s.end(state.Completed, "", nil)
}

// cancelReason says why ctx ended: a person's stop, or the caller's.
func (s *run) cancelReason(ctx context.Context) error {
	if by, ok := s.ctl.StoppedBy(ctx); ok && by != "" {
		return fmt.Errorf("stopped by %s", by)
	}
	return errors.New("cancelled")
}

// conclude ends a run that will not wait for a message: one that would go
// idle goes idle and completes at once.
func (s *run) conclude(out outcome) *Report {
	if out.status != state.Idle {
		return s.end(out.status, out.kind, out.err)
	}
	if err := s.moveTo(state.Idle); err != nil {
		return s.end(state.Failed, state.FailError, err)
	}
	return s.end(state.Completed, "", nil)
}
