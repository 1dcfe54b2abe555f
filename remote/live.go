package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/coreagent/core/internal/pause"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
)

// The console takes at most this many events a batch; Live keeps at most
// maxPending unsent before it gives up sending them (the run's
// events.jsonl keeps them all).
const (
	maxBatch   = 500
	maxPending = 20000
)

// RunControl is a message, interrupt or stop a person sent a live run from
// its page on the console.
type RunControl struct {
	ID   int64  `json:"id"`
	Kind string `json:"kind"` // message, interrupt, stop
	Text string `json:"text,omitempty"`
	From string `json:"from"`
}

// PostEvents sends events of session id's log from position seq, and
// returns the position after the last event the console holds.
func (c *Client) PostEvents(ctx context.Context, id, repo string, seq int64, events []json.RawMessage) (int64, error) {
	body, err := json.Marshal(map[string]any{"repo": repo, "seq": seq, "events": events})
	if err != nil {
		return 0, err
	}
	var out struct {
		Next int64 `json:"next"`
	}
	if _, err := c.do(ctx, http.MethodPost, "/api/session-runs/"+url.PathEscape(id)+"/events", body, &out); err != nil {
		return 0, fmt.Errorf("send the run's events: %w", err)
	}
	return out.Next, nil
}

// TakeControls takes what people sent session id from its page, waiting
// up to wait; none when nothing came.
func (c *Client) TakeControls(ctx context.Context, id string, wait time.Duration) ([]RunControl, error) {
	var out struct {
		Controls []RunControl `json:"controls"`
	}
	path := "/api/session-runs/" + url.PathEscape(id) + "/controls?" + url.Values{"wait": {wait.String()}}.Encode()
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, fmt.Errorf("take the run's messages: %w", err)
	}
	return out.Controls, nil
}

// AckControl tells the console what became of a control: the run's
// acknowledgement, or why it could not take it (rejected).
func (c *Client) AckControl(ctx context.Context, id string, control int64, ack string, rejected bool) error {
	body, err := json.Marshal(map[string]any{"ack": ack, "rejected": rejected})
	if err != nil {
		return err
	}
	path := "/api/session-runs/" + url.PathEscape(id) + "/controls/" + strconv.FormatInt(control, 10)
	if _, err := c.do(ctx, http.MethodPost, path, body, nil); err != nil {
		return fmt.Errorf("acknowledge control %d: %w", control, err)
	}
	return nil
}

// Live connects a running session to the console: its events go up in
// batches as they are written, and what people send it from its page
// (messages, interrupts, stops) comes down to its Control, each
// acknowledged. It is how a run serve started is watched and steered
// from the console.
type Live struct {
	Console *Client
	Store   *session.Store
	ID      string
	// Repo is the run's repository as the console knows it (owner/name).
	Repo    string
	Control *live.Control
	Out     io.Writer
	// PollWait is how long each long-poll for controls waits (default
	// 25s); Every how often a batch of events goes (default 1s).
	PollWait, Every time.Duration

	mu      sync.Mutex
	pending []json.RawMessage
	sent    int64 // events the console holds
	more    chan struct{}
	placed  chan struct{} // closed once the console holds the run
	once    sync.Once
	// failing is why the last batch did not reach the console; nil once
	// one did.
	failing error
	// posting is when the batch under way was sent; zero when none is.
	posting time.Time
}

// Start follows the run until it ends. The returned finish, called once
// the run has ended, waits for its last events to reach the console (at
// most flushWait, and at most downWait while the console does not answer)
// and stops taking controls.
func (l *Live) Start(ctx context.Context) (finish func()) {
	if l.PollWait <= 0 {
		l.PollWait = 25 * time.Second
	}
	if l.Every <= 0 {
		l.Every = time.Second
	}
	l.more, l.placed = make(chan struct{}, 1), make(chan struct{})
	ctx, cancel := context.WithCancel(ctx)
	watched := make(chan struct{})
	sent := make(chan struct{})
	go func() {
		defer close(watched)
		l.follow(ctx)
	}()
	go func() {
		defer close(sent)
		l.send(ctx, watched)
	}()
	go l.controls(ctx)
	return func() {
		if _, err := os.Stat(filepath.Join(l.Store.Dir(l.ID), live.EventsFile)); err != nil {
			cancel() // the run never started: there is nothing to send
			return
		}
		defer cancel()
		begun := time.Now()
		limit := time.NewTimer(flushWait)
		defer limit.Stop()
		look := time.NewTicker(100 * time.Millisecond)
		defer look.Stop()
		for {
			select {
			case <-sent:
				return
			case <-limit.C:
				fmt.Fprintf(l.Out, "live: the run's last events did not reach the console within %s: they stay in its %s\n", flushWait, live.EventsFile)
				return
			case <-look.C:
				if err := l.failure(); err != nil && time.Since(begun) >= downWait {
					fmt.Fprintf(l.Out, "live: the console does not answer (%v): the run's last events stay in its %s\n", err, live.EventsFile)
					return
				}
			}
		}
	}
}

// A run that ended waits at most flushWait for its last events to reach
// the console, and at most downWait while the console does not answer: a
// console that is down costs the run's end a few seconds, no more.
const (
	flushWait = 30 * time.Second
	downWait  = 5 * time.Second
)

// failure is why the last batch did not reach the console, or nil; a
// batch under way for downWait or longer is the console's silence.
func (l *Live) failure() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.posting.IsZero() {
		if waited := time.Since(l.posting); waited >= downWait {
			return fmt.Errorf("no answer to the run's events in %s", waited.Round(time.Second))
		}
	}
	return l.failing
}

// follow reads the run's event log, from its first line, into pending,
// waiting for the log to appear. Not for the run's record: that is written
// (pending) before the run takes its lock, and a run seen pending with no
// process has not started, for all Watch can tell. The log is opened
// once the run holds its lock.
func (l *Live) follow(ctx context.Context) {
	log := filepath.Join(l.Store.Dir(l.ID), live.EventsFile)
	for {
		if _, err := os.Stat(log); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	err := l.Store.Watch(ctx, l.ID, func(e live.Event) error {
		raw, err := json.Marshal(e)
		if err != nil {
			return err
		}
		l.mu.Lock()
		if len(l.pending) < maxPending {
			l.pending = append(l.pending, raw)
		}
		l.mu.Unlock()
		select {
		case l.more <- struct{}{}:
		default:
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(l.Out, "live: %v\n", err)
	}
}

// send posts pending events in batches every Every, until the log is read
// to its end (watched closed) and everything is sent, or sending is
// hopeless.
func (l *Live) send(ctx context.Context, watched <-chan struct{}) {
	tick := time.NewTicker(l.Every)
	defer tick.Stop()
	backoff := time.Duration(0)
	for {
		done := false
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-watched:
			done = true
		}
		for {
			l.mu.Lock()
			batch := l.pending[:min(len(l.pending), maxBatch)]
			seq := l.sent
			l.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			l.mu.Lock()
			l.posting = time.Now()
			l.mu.Unlock()
			next, err := l.Console.PostEvents(ctx, l.ID, l.Repo, seq, batch)
			l.mu.Lock()
			l.posting = time.Time{}
			l.mu.Unlock()
			var ce *Error
			switch {
			case ctx.Err() != nil:
				return
			case errors.As(err, &ce) && ce.Status != http.StatusBadGateway && ce.Status < 500:
				fmt.Fprintf(l.Out, "live: the console refused the run's events (%v): it gets only the report\n", err)
				return
			case err != nil:
				l.mu.Lock()
				l.failing = err
				l.mu.Unlock()
				backoff = min(max(2*backoff, time.Second), 30*time.Second)
				fmt.Fprintf(l.Out, "live: %v; trying again in %s\n", err, backoff)
				if pause.For(ctx, backoff) != nil {
					return
				}
				continue
			}
			backoff = 0
			l.once.Do(func() { close(l.placed) })
			l.mu.Lock()
			l.failing = nil
			n := min(max(next-l.sent, 0), int64(len(l.pending)))
			l.pending, l.sent = l.pending[n:], l.sent+n
			full := len(l.pending) == 0 && l.sent >= maxPending
			l.mu.Unlock()
			if full {
				fmt.Fprintf(l.Out, "live: the run wrote more than %d events: the rest stay in its %s\n", maxPending, live.EventsFile)
				return
			}
		}
		if done {
			return
		}
	}
}

// controls takes what people send from the run's page, once the console
// holds the run, and hands it to the run's Control until ctx ends.
func (l *Live) controls(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-l.placed:
	}
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		cs, err := l.Console.TakeControls(ctx, l.ID, l.PollWait)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			backoff = min(max(2*backoff, time.Second), time.Minute)
			fmt.Fprintf(l.Out, "live: %v; trying again in %s\n", err, backoff)
			if pause.For(ctx, backoff) != nil {
				return
			}
			continue
		}
		backoff = 0
		for _, c := range cs {
			ack, err := l.apply(c)
			text := ack
			if err != nil {
				text = err.Error()
			}
			fmt.Fprintf(l.Out, "live: %s from %s: %s\n", c.Kind, c.From, text)
			if aerr := l.Console.AckControl(context.WithoutCancel(ctx), l.ID, c.ID, text, err != nil); aerr != nil {
				fmt.Fprintf(l.Out, "live: %v\n", aerr)
			}
		}
	}
}

// apply hands one control to the run; the console has checked who sent
// it (the run's starter, or for a stop a repository admin).
func (l *Live) apply(c RunControl) (string, error) {
	switch c.Kind {
	case "message":
		return l.Control.Send(live.Message{From: c.From, Text: c.Text})
	case "interrupt":
		return l.Control.Interrupt(c.From)
	case "stop":
		return l.Control.Stop(c.From)
	}
	return "", fmt.Errorf("core does not know the control %q: update core", c.Kind)
}
