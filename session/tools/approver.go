package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/coreagent/core/session/scrub"
)

// Declined is what the model sees when the human did not approve.
const Declined = "declined: the human operator did not approve this command"

// maxAnswer is the longest answer line kept; a longer line declines.
const maxAnswer = 256

// Approver decides gated actions. action is the exact text shown to the
// human.
type Approver interface {
	Approve(ctx context.Context, action string) (bool, error)
}

// TerminalApprover asks a human at a terminal: it prints the action and
// "approve? [y/N] " to Out and reads one line from In. It fails closed: with
// no terminal (Terminal false) it declines without reading, and on EOF, a
// read error or any answer but "y" or "yes" (any case, blanks trimmed) it
// declines. It never blocks past ctx: when ctx ends first it returns
// ctx.Err(). In is read by one read at a time, so two questions never
// split a line: a read a question left when its ctx ended is taken over by
// the next question, which drops the line if it came in before it was
// asked, and takes it as its answer if it came in after.
type TerminalApprover struct {
	In       io.Reader
	Out      io.Writer
	Terminal bool

	mu sync.Mutex
	// reading is the read of In in flight that no question waits on, or
	// nil.
	reading chan string
}

var _ Approver = (*TerminalApprover)(nil)

// Approve asks the human about action.
func (a *TerminalApprover) Approve(ctx context.Context, action string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	out := a.Out
	if out == nil {
		out = io.Discard
	}
	// The action is the model's: its escape sequences are shown, not
	// obeyed.
	out = scrub.TerminalWriter(out)
	if !a.Terminal || a.In == nil {
		fmt.Fprintf(out, "%s\nno terminal to ask for approval: declined\n", action)
		return false, nil
	}
	answer := a.read()
	fmt.Fprintf(out, "%s\napprove? [y/N] ", action)
	select {
	case <-ctx.Done():
		a.leave(answer)
		fmt.Fprintln(out)
		return false, ctx.Err()
	case line := <-answer:
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	}
}

// read returns the read of In whose line answers the question about to be
// asked: the one an earlier question left, unless its line already came
// in (typed when no question was asked: dropped), or a new one.
func (a *TerminalApprover) read() chan string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.reading; r != nil {
		a.reading = nil
		select {
		case <-r:
		default:
			return r
		}
	}
	r := make(chan string, 1)
	go func() { r <- readLine(a.In) }()
	return r
}

// leave keeps the read r of a question that ended first, for the next.
func (a *TerminalApprover) leave(r chan string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reading = r
}

// Attended reports whether a person can be asked: a terminal to read the
// answer from.
func (a *TerminalApprover) Attended() bool { return a.Terminal && a.In != nil }

// Attended reports whether an approver asks a person (it has an Attended
// method that says so); DenyApprover and unknown approvers do not.
func Attended(a Approver) bool {
	at, ok := a.(interface{ Attended() bool })
	return ok && at.Attended()
}

// readLine reads up to a newline one byte at a time, so that nothing past
// the answer is consumed from In. EOF or an error before any byte gives "";
// a line longer than maxAnswer is read to its end and gives "" (declined),
// so that no part of it answers the next question.
func readLine(r io.Reader) string {
	var line []byte
	long := false
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		if n == 1 {
			switch {
			case b[0] == '\n' && long:
				return ""
			case b[0] == '\n':
				return string(line)
			case len(line) >= maxAnswer:
				long = true
			default:
				line = append(line, b[0])
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && !long {
				return string(line)
			}
			return ""
		}
	}
}

// DenyApprover declines everything. core session serve uses it.
type DenyApprover struct{}

var _ Approver = DenyApprover{}

// Approve declines.
func (DenyApprover) Approve(ctx context.Context, action string) (bool, error) {
	return false, ctx.Err()
}
