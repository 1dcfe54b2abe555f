// Package prompt reads the lines a person types at a run's terminal: the
// answers to its questions and the instructions at its idle prompt.
package prompt

import (
	"io"
	"strings"
	"time"
)

// Lines are a terminal's lines, read by one goroutine for the whole run,
// so that a line typed while the run waited elsewhere is not lost. The
// reader starts at the first call of C and ends with Stop.
type Lines struct {
	in   io.Reader
	ch   chan string
	done chan struct{}
	gone chan struct{}
}

// New returns the lines of in; nothing is read before C is called.
func New(in io.Reader) *Lines { return &Lines{in: in} }

// C returns the lines, starting their reader on the first call. The
// channel is closed when the input ends or Stop is called.
func (l *Lines) C() <-chan string {
	if l.ch != nil {
		return l.ch
	}
	l.ch, l.done, l.gone = make(chan string), make(chan struct{}), make(chan struct{})
	ch, done, gone, in := l.ch, l.done, l.gone, l.in
	go func() {
		defer close(gone)
		defer close(ch)
		for {
			line, ok := ReadLine(in)
			select {
			case <-done:
				return
			default:
			}
			if !ok {
				return
			}
			select {
			case ch <- line:
			case <-done:
				return
			}
		}
	}()
	return l.ch
}

// deadliner is an input whose reads can be ended: the *os.File of a pipe,
// a net.Conn.
type deadliner interface{ SetReadDeadline(time.Time) error }

// Stop ends the reader, if it started: it sends nothing after, and a
// read under way on an input that has deadlines (a pipe, a socket)
// returns at once, the deadline then set back as it was; on one without
// (a terminal), the read returns at its next line.
func (l *Lines) Stop() {
	if l.done == nil {
		return
	}
	close(l.done)
	l.done = nil
	if d, ok := l.in.(deadliner); ok && d.SetReadDeadline(time.Now()) == nil {
		<-l.gone
		_ = d.SetReadDeadline(time.Time{})
	}
}

// ReadLine reads one line, byte by byte, so that nothing after it is
// consumed from a reader others share. It reports false when the input
// ended with nothing read.
func ReadLine(r io.Reader) (string, bool) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return b.String(), true
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			return b.String(), b.Len() > 0
		}
	}
}
