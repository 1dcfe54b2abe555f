package live

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/coreagent/core/session/state"
)

// errInterrupted and errStopped are the causes a person's interrupt and
// stop cancel a run's contexts with.
var (
	errInterrupted = errors.New("interrupted")
	errStopped     = errors.New("stopped")
)

// Control is how a live run is reached from outside its loop: messages,
// an interrupt of the current turn, a stop. Entry points that hand
// messages to the run themselves (the bot's local mode, the Action reading
// comments) make one with NewControl and pass it in Options.Live.Control; the
// command line reaches it through the session's socket (Serve).
// Authorising the sender is the caller's job: Control takes what it is
// given.
type Control struct {
	mu     sync.Mutex
	status state.Status
	inbox  []Message
	wake   chan struct{}
	// turn cancels the current turn; pending is an interrupt that came
	// between two turns, for the next one.
	turn    context.CancelCauseFunc
	pending bool
	by      string
	stop    context.CancelCauseFunc
	// heard is set once a person has sent a message.
	heard bool
	// finish is set when a person asked the idle run to complete
	// (Finish).
	finish bool
}

// NewControl returns a control for one run.
func NewControl() *Control {
	return &Control{status: state.Pending, wake: make(chan struct{}, 1)}
}

// Status is the run's state as its loop last set it.
func (c *Control) Status() state.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Send queues a message for the run and returns the acknowledgement to
// show its sender.
func (c *Control) Send(m Message) (string, error) {
	if strings.TrimSpace(m.Text) == "" {
		return "", errors.New("the message is empty: say what the run should do")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.status.Live() {
		return "", fmt.Errorf("the run is %s: it takes messages only while it is active or idle", c.status)
	}
	c.inbox = append(c.inbox, m)
	c.heard = true
	select {
	case c.wake <- struct{}{}:
	default:
	}
	if c.status == state.Idle {
		return "received: the idle run continues with it now", nil
	}
	return "received: the run reads it before its next turn", nil
}

// Interrupt cancels the current turn (the model's request or the command
// that runs): the work stays and the run goes idle.
func (c *Control) Interrupt(from string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status != state.Active && c.status != state.Starting {
		return "", fmt.Errorf("the run is %s: only an active run can be interrupted", c.status)
	}
	c.by = from
	if c.turn != nil {
		c.turn(errInterrupted)
	} else {
		c.pending = true
	}
	return "interrupted: the current turn stops, the work stays and the run goes idle", nil
}

// Stop ends the run now: the work stays in its workspace and the run ends
// cancelled.
func (c *Control) Stop(from string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status.Terminal() {
		return "", fmt.Errorf("the run has already ended (%s)", c.status)
	}
	c.by = from
	if c.stop == nil {
		return "", errors.New("the run has not started yet")
	}
	c.stop(errStopped)
	return "stopping: the run ends now and keeps its work", nil
}

// Finish completes an idle run as /exit at its prompt does: its wait
// ends, and so does the run, its work landed as it is. Only an idle run
// can be finished; an active one is interrupted or stopped instead.
func (c *Control) Finish() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status != state.Idle {
		return "", fmt.Errorf("the run is %s: only an idle run can be finished", c.status)
	}
	c.finish = true
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return "finishing: the idle run completes now", nil
}

// The loop's side: the run that owns the control calls these; an entry
// point only makes it and hands it in.

// Attach gives the control the run's stop.
func (c *Control) Attach(stop context.CancelCauseFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop = stop
}

// SetStatus records the run's state as its loop moves it. A Finish the
// idle run did not see before it moved on is dropped; so is an interrupt
// no turn took (one sent while the harness checked the result), once the
// run is idle as it asked: it would stop the next instruction's first
// turn.
func (c *Control) SetStatus(s state.Status) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status = s
	if s != state.Idle {
		c.finish = false
	} else {
		c.pending = false
	}
}

// Finishing reports whether a person asked the idle run to complete.
func (c *Control) Finishing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.finish
}

// StartTurn makes the context of one turn, which Interrupt cancels; done
// must be called when the turn ends.
func (c *Control) StartTurn(ctx context.Context) (context.Context, func()) {
	turnCtx, cancel := context.WithCancelCause(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.turn = cancel
	if c.pending {
		c.pending = false
		cancel(errInterrupted)
	}
	return turnCtx, func() {
		c.mu.Lock()
		c.turn = nil
		c.mu.Unlock()
		cancel(nil)
	}
}

// Interrupted reports whether a person interrupted the turn ctx is, and who.
func (c *Control) Interrupted(ctx context.Context) (string, bool) {
	if !errors.Is(context.Cause(ctx), errInterrupted) {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.by, true
}

// StoppedBy says who stopped the run, when someone did.
func (c *Control) StoppedBy(ctx context.Context) (string, bool) {
	if !errors.Is(context.Cause(ctx), errStopped) {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.by, true
}

// Take returns the queued messages and empties the queue.
func (c *Control) Take() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	ms := c.inbox
	c.inbox = nil
	return ms
}

// Peek returns the queued messages, leaving them queued.
func (c *Control) Peek() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inbox
}

// Wake is signalled when a message is queued, for a run waiting idle.
func (c *Control) Wake() <-chan struct{} { return c.wake }

// HeardFromPerson reports whether a person has sent the run a message.
func (c *Control) HeardFromPerson() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.heard
}
