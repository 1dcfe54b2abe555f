// Package heartbeat is what a person sees while a turn takes long: every
// beat, a line saying how long the model or a command has taken so far,
// with the command's last line of output or what it waits for.
package heartbeat

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/tools"
)

// Default is how often a turn that takes long says it still runs.
const Default = 10 * time.Second

// Beat reports one turn while it runs: every Live.Heartbeat, how long
// what it waits for (the model, a command) has taken so far and, while a
// command runs, the command's last line of output, with how long ago it
// came when that is more than a beat: a line that says how long something
// has run is true when written, and the beat says how old it is. Both are
// read from the clock at each beat. It is an io.Writer for that output.
// Lines are plain text, no colour and no control characters, so a log or a
// pipe reads them as a terminal does.
type Beat struct {
	w     io.Writer
	every time.Duration
	now   func() time.Time

	mu      sync.Mutex
	label   string
	since   time.Time // when what the label names began
	last    string    // the last complete, non-blank output line
	lastAt  time.Time // when the output shown last grew
	partial []byte    // output after the last newline
	waits   []wait    // what the command waits for now (sandbox.Waits)
	waitIDs int       // the last wait's id
	beatLoop
}

// beatLoop is the life of a beat's goroutine: stop ends it, done is
// closed once it has ended.
type beatLoop struct {
	stop chan struct{}
	done chan struct{}
}

// Start starts the heartbeat of a turn, labelled label (the turn and
// what it waits for): a line to w every beat, read from the clock now.
func Start(w io.Writer, every time.Duration, now func() time.Time, label string) *Beat {
	b := &Beat{w: w, every: every, now: now, label: label, since: now(), beatLoop: beatLoop{stop: make(chan struct{}), done: make(chan struct{})}}
	go b.loop()
	return b
}

func (b *Beat) loop() {
	defer close(b.done)
	t := time.NewTicker(b.every)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			fmt.Fprintln(b.w, b.line(b.now()))
		}
	}
}

// line is the heartbeat's line at now.
func (b *Beat) line(now time.Time) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	line := fmt.Sprintf("%s  (%s)", b.label, now.Sub(b.since).Round(time.Second))
	if n := len(b.waits); n > 0 {
		w := b.waits[n-1]
		return line + fmt.Sprintf(": waiting for %s  [%s so far]", clip.Line(w.what, 140), now.Sub(w.since).Round(time.Second))
	}
	if last := b.lastLine(); last != "" {
		line += ": " + clip.Line(last, 100)
		if age := now.Sub(b.lastAt); age >= max(b.every, time.Second) {
			line += fmt.Sprintf("  [%s ago]", age.Round(time.Second))
		}
	}
	return line
}

// Relabel says the turn moved on (the model answered, a command started):
// the time counts from now; announce prints the new label at once.
func (b *Beat) Relabel(label string, announce bool) {
	b.mu.Lock()
	b.label, b.last, b.partial, b.since, b.waits = label, "", nil, b.now(), nil
	b.mu.Unlock()
	if announce {
		fmt.Fprintln(b.w, label)
	}
}

// wait is one wait a command has under way: what for, since when.
type wait struct {
	what  string
	since time.Time
	id    int
}

// Waiting shows what the running command waits for (sandbox.Waits) in
// each beat, in place of its last line of output, until the wait ends:
// a wait that has ended is never shown again.
func (b *Beat) Waiting(what string) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waitIDs++
	id := b.waitIDs
	b.waits = append(b.waits, wait{what: what, since: b.now(), id: id})
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.waits = slices.DeleteFunc(b.waits, func(w wait) bool { return w.id == id })
	}
}

// Output is a command's progress as a turn gives it: its output to
// the heartbeat and to the event log, its waits to the heartbeat.
type Output struct {
	io.Writer
	Beat *Beat
}

func (o Output) Waiting(what string) func() { return o.Beat.Waiting(what) }

// Write takes a running command's output and keeps its last line.
func (b *Beat) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.partial = append(b.partial, p...)
	if b.now != nil && len(bytes.TrimSpace(p)) > 0 {
		b.lastAt = b.now()
	}
	if i := bytes.LastIndexByte(b.partial, '\n'); i >= 0 {
		lines := strings.Split(string(b.partial[:i]), "\n")
		for j := len(lines) - 1; j >= 0; j-- {
			if strings.TrimSpace(lines[j]) != "" {
				b.last = lines[j]
				break
			}
		}
		b.partial = append([]byte(nil), b.partial[i+1:]...)
	}
	if len(b.partial) > 4096 {
		b.partial = b.partial[len(b.partial)-4096:]
	}
	return len(p), nil
}

// lastLine is the line a heartbeat shows; callers hold b.mu.
func (b *Beat) lastLine() string {
	if s := strings.TrimSpace(string(b.partial)); s != "" {
		return s
	}
	return b.last
}

// End stops the heartbeat; nothing is printed after it returns.
func (b *Beat) End() {
	close(b.stop)
	<-b.done
}

// ActionLabel names what a turn is doing for its progress lines:
// "turn 3/40  run_shell go test ./...".
func ActionLabel(turn, maxTurns int, tool string, args tools.Args) string {
	label := fmt.Sprintf("turn %d/%d  %s", turn, maxTurns, tool)
	for _, key := range []string{"command", "path", "pattern", "title", "url", "selector"} {
		if v, ok := args[key].(string); ok && v != "" {
			return label + " " + clip.Line(v, 60)
		}
	}
	return label
}
