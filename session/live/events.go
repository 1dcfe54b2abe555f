package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/state"
)

// EventsFile is the run's event log, beside its transcript: one Event a
// line, appended as things happen and never rewritten. core session watch
// follows it.
const EventsFile = "events.jsonl"

// EventKind says what an event tells.
type EventKind string

// The event kinds.
const (
	EventState     EventKind = "state"     // the run moved to Status
	EventTurn      EventKind = "turn"      // a turn's tool and target
	EventOutput    EventKind = "output"    // a chunk of a command's output, as it arrived
	EventCheck     EventKind = "check"     // a check's verdict in the contract
	EventMessage   EventKind = "message"   // a person's message reached the run
	EventInterrupt EventKind = "interrupt" // a person interrupted the current turn
	// The kinds below are the run's finished steps, each with its Step
	// (and a request's Request); its Time is when it ended, so it began
	// at Time less Step.DurationMS. OpenTelemetry's listener makes them
	// spans; watch shows them a line each.
	EventRequest EventKind = "request" // a request to the model came back (or failed: Text)
	EventTool    EventKind = "tool"    // a tool call ended: Tool, Target; Text is its error, if any
	EventCommand EventKind = "command" // a sandbox command ended: Target its argv, Step its exit, backend, limit; Text where a check's ran, or why it did not run
	EventDeps    EventKind = "deps"    // the dependency step ended: Verdict ok, failed or skipped; Text why
	EventLand    EventKind = "land"    // the work landed (Target: where) or did not (Text: why)
)

// outputChunk bounds the text of one output event.
const outputChunk = 4096

// Event is one line of events.jsonl.
type Event struct {
	Time        time.Time         `json:"time"`
	Kind        EventKind         `json:"kind"`
	Status      state.Status      `json:"status,omitempty"`
	FailureKind state.FailureKind `json:"failure_kind,omitempty"`
	Turn        int               `json:"turn,omitempty"`
	Tool        string            `json:"tool,omitempty"`
	Target      string            `json:"target,omitempty"`
	From        string            `json:"from,omitempty"`
	Text        string            `json:"text,omitempty"`
	Progress
	Step
	Request
}

// Step is what a finished step tells of itself, inline in the event's
// JSON: a check's name and verdict (check events), and for the step kinds
// (request, tool, command, deps, check, land) how long it took and what
// it ended in.
type Step struct {
	Check   string `json:"check,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// DurationMS is how long the step took, in milliseconds.
	DurationMS int64 `json:"duration_ms,omitempty"`
	// Exit is a command's exit status; nil when it has none (it did not
	// start, or was killed by a signal).
	Exit *int `json:"exit,omitempty"`
	// Backend is where a command ran: bwrap, docker or host.
	Backend string `json:"backend,omitempty"`
	// Limit is the limit core stopped a command for (time, memory,
	// output, processes), empty when it hit none.
	Limit string `json:"limit,omitempty"`
}

// Request is what one request to the model tells, inline in a request
// event's JSON. No prompt text is in it.
type Request struct {
	Model        string `json:"model,omitempty"`
	InputTokens  int    `json:"input_tokens,omitempty"`
	OutputTokens int    `json:"output_tokens,omitempty"`
	// Retries is how many times the request was sent again after a
	// failure the client retries (a 429, a 5xx, a dropped connection).
	Retries int `json:"retries,omitempty"`
	// RequestCostUSD is this request's cost; nil when no price is known.
	RequestCostUSD *float64 `json:"request_cost_usd,omitempty"`
}

// Duration is the step's duration.
func (s Step) Duration() time.Duration { return time.Duration(s.DurationMS) * time.Millisecond }

// Took returns a Step's DurationMS for d, at least 1 for a step that took
// any time at all (so that omitempty does not drop it).
func Took(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return max(d.Milliseconds(), 1)
}

// Progress is what the run's state and turn events say of it so far,
// inline in the event's JSON.
type Progress struct {
	// Goal is what the run was asked to do, in a line, on its state
	// events, so that whoever follows the run knows it from the first.
	Goal string `json:"goal,omitempty"`
	// Tokens and CostUSD are what this run has spent so far, on its
	// state and turn events; CostUSD is nil when no price is known (a
	// price is known from the start, so a priced run's first event
	// carries 0).
	Tokens  int      `json:"tokens,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// String is the event as watch prints it for people: one line, or more
// for output, which comes as it was written.
func (e Event) String() string {
	at := e.Time.Local().Format("15:04:05")
	switch e.Kind {
	case EventState:
		line := fmt.Sprintf("%s  %s", at, e.Status.Word())
		if e.FailureKind != "" {
			line += " (" + string(e.FailureKind) + ")"
		}
		if e.Text != "" {
			line += ": " + e.Text
		}
		return line
	case EventTurn:
		line := fmt.Sprintf("%s  turn %d  %s", at, e.Turn, e.Tool)
		if e.Target != "" {
			line += " " + clip.Line(e.Target, 80)
		}
		return line
	case EventOutput:
		return string(bytes.TrimRight([]byte(e.Text), "\n"))
	case EventCheck:
		line := fmt.Sprintf("%s  check %s: %s", at, e.Check, e.Verdict)
		if e.DurationMS > 0 {
			line += fmt.Sprintf(" (%s on the result)", e.Duration().Round(time.Millisecond))
		}
		return line
	case EventMessage:
		return fmt.Sprintf("%s  message from %s: %s", at, e.From, e.Text)
	case EventInterrupt:
		return fmt.Sprintf("%s  interrupted by %s", at, e.From)
	case EventRequest:
		line := fmt.Sprintf("%s  request %s: %d in, %d out, %s", at, e.Model, e.InputTokens, e.OutputTokens, e.Duration().Round(time.Millisecond))
		switch {
		case e.Retries == 1:
			line += ", sent again once"
		case e.Retries > 1:
			line += fmt.Sprintf(", sent again %d times", e.Retries)
		}
		return withText(line, e.Text)
	case EventTool:
		line := fmt.Sprintf("%s  tool %s", at, e.Tool)
		if e.Target != "" {
			line += " " + clip.Line(e.Target, 60)
		}
		return withText(line+fmt.Sprintf(": %s", e.Duration().Round(time.Millisecond)), e.Text)
	case EventCommand:
		exit := "no exit status"
		if e.Exit != nil {
			exit = fmt.Sprintf("exit %d", *e.Exit)
		}
		line := fmt.Sprintf("%s  command %s: %s, %s", at, clip.Line(e.Target, 60), exit, e.Duration().Round(time.Millisecond))
		if e.Backend != "" {
			line += " (" + e.Backend + ")"
		}
		if e.Limit != "" {
			line += ", stopped at its " + e.Limit + " limit"
		}
		return withText(line, e.Text)
	case EventDeps:
		return withText(fmt.Sprintf("%s  dependencies: %s, %s", at, e.Verdict, e.Duration().Round(time.Millisecond)), e.Text)
	case EventLand:
		if e.Target != "" {
			return withText(fmt.Sprintf("%s  landed: %s", at, e.Target), e.Text)
		}
		return withText(fmt.Sprintf("%s  not landed", at), e.Text)
	}
	return fmt.Sprintf("%s  %s %s", at, e.Kind, e.Text)
}

func withText(line, text string) string {
	if text == "" {
		return line
	}
	return line + ": " + clip.Line(text, 120)
}

// EventLog appends events to events.jsonl, scrubbed, each line written in
// one call to a file opened for appending. Safe for concurrent use: a
// command's output arrives from its own goroutine.
type EventLog struct {
	mu    sync.Mutex
	f     *os.File
	scrub *scrub.Scrubber
	now   func() time.Time
	// listeners see every event added, scrubbed and stamped (Listen).
	listeners []func(Event)
}

// Listen adds fn to the listeners of the log: each event added from now
// on until Close is handed to fn, scrubbed and stamped, in order, whether
// or not its line could be written (OpenTelemetry's exporter is one). fn is called
// with the log's lock held: it must not block, nor add to the log.
func (l *EventLog) Listen(fn func(Event)) {
	if l == nil || fn == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.listeners = append(l.listeners, fn)
}

// OpenEvents opens the event log of a session for appending, 0600.
func OpenEvents(path string, sc *scrub.Scrubber, now func() time.Time) (*EventLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the event log: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("open the event log: %w", err)
	}
	return &EventLog{f: f, scrub: sc, now: now}, nil
}

// Add appends e, stamped now. The log is a view of the run, not its
// record: a failed write loses the event, never the run.
func (l *EventLog) Add(e Event) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return
	}
	e.Time = l.now()
	for _, s := range []*string{&e.Target, &e.Text, &e.Check, &e.From, &e.Goal} {
		*s = l.scrub.String(*s)
	}
	for _, fn := range l.listeners {
		fn(e)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	_, _ = l.f.Write(append(b, '\n'))
}

// Close closes the log: what is added after is dropped.
func (l *EventLog) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// Output returns a writer that turns a command's output into output
// events of whole lines (a line longer than outputChunk is cut), so that a
// secret never straddles two events; Flush writes what is left.
func (l *EventLog) Output(turn int) *OutputEvents {
	return &OutputEvents{log: l, turn: turn}
}

// OutputEvents is a command's output becoming events (EventLog.Output).
type OutputEvents struct {
	mu   sync.Mutex
	log  *EventLog
	turn int
	buf  []byte
}

func (o *OutputEvents) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	for {
		cut := bytes.LastIndexByte(o.buf, '\n') + 1
		if cut == 0 && len(o.buf) >= outputChunk {
			cut = outputChunk
		}
		if cut == 0 {
			return len(p), nil
		}
		if cut > outputChunk {
			// Whole lines, at most outputChunk of them in one event.
			if i := bytes.LastIndexByte(o.buf[:outputChunk], '\n') + 1; i > 0 {
				cut = i
			} else {
				cut = outputChunk
			}
		}
		o.log.Add(Event{Kind: EventOutput, Turn: o.turn, Text: string(o.buf[:cut])})
		o.buf = o.buf[cut:]
	}
}

// Flush writes the output's unfinished last line.
func (o *OutputEvents) Flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.buf) > 0 {
		o.log.Add(Event{Kind: EventOutput, Turn: o.turn, Text: string(o.buf)})
		o.buf = nil
	}
}
