package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// ctrlCAgain is how soon a second Ctrl-C after one that interrupted a
// turn ends the run.
const ctrlCAgain = 3 * time.Second

// ctrlCAction is what a Ctrl-C does to a session run at this terminal.
type ctrlCAction int

const (
	// ctrlCCancel ends the run, cancelled, its work kept: the default.
	ctrlCCancel ctrlCAction = iota
	// ctrlCInterrupt stops the current turn, as core session interrupt
	// does; the run goes idle and asks for the next instruction.
	ctrlCInterrupt
	// ctrlCFinish completes an idle run, as /exit at its prompt does.
	ctrlCFinish
)

// ctrlCFor is the one rule of what a Ctrl-C does, given the run's state
// and whether the last Ctrl-C interrupted a turn less than ctrlCAgain
// ago: a second one then ends the run; at the idle prompt it completes
// the run; during a turn it interrupts the turn; at any other moment
// (before the run starts, while it ends) it ends the run.
func ctrlCFor(status state.Status, again bool) ctrlCAction {
	switch {
	case again:
		return ctrlCCancel
	case status == state.Idle:
		return ctrlCFinish
	case status == state.Active || status == state.Starting:
		return ctrlCInterrupt
	}
	return ctrlCCancel
}

// ctrlC handles the Ctrl-Cs a session run at this terminal is sent,
// through its control.
type ctrlC struct {
	ctl *live.Control
	out io.Writer
	now func() time.Time

	mu          sync.Mutex
	interrupted time.Time // when a Ctrl-C last interrupted a turn
}

// handle acts on one Ctrl-C; false leaves it to the default, which
// cancels the run.
func (c *ctrlC) handle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	again := !c.interrupted.IsZero() && now.Sub(c.interrupted) < ctrlCAgain
	switch ctrlCFor(c.ctl.Status(), again) {
	case ctrlCFinish:
		_, err := c.ctl.Finish()
		return err == nil
	case ctrlCInterrupt:
		if _, err := c.ctl.Interrupt(live.LocalUser(os.Getuid())); err != nil {
			return false
		}
		c.interrupted = now
		fmt.Fprintf(c.out, "interrupted: the turn stops; Ctrl-C again within %s ends the run\n", ctrlCAgain)
		return true
	}
	return false
}

// claimCtrlC makes Ctrl-C the run's while it runs (ctrlC), through its
// control, made here when the options have none; release gives Ctrl-C
// back to the default once the run has ended.
func (e *env) claimCtrlC(o *session.Options) (release func()) {
	if o.Live.Control == nil {
		o.Live.Control = live.NewControl()
	}
	c := &ctrlC{ctl: o.Live.Control, out: e.stderr, now: time.Now}
	return e.signals.claim(c.handle)
}
