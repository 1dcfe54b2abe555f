package model_test

// The context's end, tested at chosen moments of the exchange: a deadline
// that passes on an event, not after a time.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/model"
)

// eventDeadline is a context whose deadline passes when pass is called: at
// a chosen moment of the exchange rather than after a chosen time, so the
// test holds on a busy machine.
type eventDeadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newEventDeadline(parent context.Context) *eventDeadline {
	return &eventDeadline{Context: parent, done: make(chan struct{})}
}

func (d *eventDeadline) Done() <-chan struct{} { return d.done }

func (d *eventDeadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (d *eventDeadline) pass() { d.once.Do(func() { close(d.done) }) }

// answerCounter is the client's transport, the real one, telling on a
// channel each time the client has read and closed a response.
type answerCounter struct {
	next     http.RoundTripper
	answered chan struct{}
}

func (a *answerCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(r)
	if err == nil {
		resp.Body = &toldBody{ReadCloser: resp.Body, answered: a.answered}
	}
	return resp, err
}

type toldBody struct {
	io.ReadCloser
	answered chan struct{}
	once     sync.Once
}

func (b *toldBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() {
		select {
		case b.answered <- struct{}{}:
		default: // enough said
		}
	})
	return err
}

func TestCompleteContextEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		replies []llm.Reply
		cancel  bool // cancel instead of a deadline
		// The context ends once the server has received arrived requests
		// and the client has read answered replies.
		arrived, answered int
		want              error
		wantStatus        int
		wantInError       string
		checkReqs         func(n int) bool
	}{
		{
			name:      "deadline during a slow reply",
			replies:   []llm.Reply{llm.ContentReply("late").After(time.Hour)},
			arrived:   1,
			want:      context.DeadlineExceeded,
			checkReqs: func(n int) bool { return n == 1 },
		},
		{
			name:      "cancelled during a slow reply",
			replies:   []llm.Reply{llm.ContentReply("late").After(time.Hour)},
			cancel:    true,
			arrived:   1,
			want:      context.Canceled,
			checkReqs: func(n int) bool { return n == 1 },
		},
		{
			name:        "deadline while retrying an outage",
			replies:     slices.Repeat([]llm.Reply{llm.ErrorReply(503, "Loading model")}, 100000),
			answered:    2,
			want:        context.DeadlineExceeded,
			wantStatus:  503,
			wantInError: "stopped after ",
			checkReqs:   func(n int) bool { return n > 1 },
		},
		{
			name:        "Retry-After is waited out",
			replies:     []llm.Reply{llm.ErrorReply(429, "slow down").WithHeader("Retry-After", "30"), llm.ContentReply("too early")},
			answered:    1,
			want:        context.DeadlineExceeded,
			wantStatus:  429,
			wantInError: "stopped after 1 attempt: context deadline exceeded; last failure: 429 Too Many Requests: slow down",
			checkReqs:   func(n int) bool { return n == 1 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := llm.NewModelServer(t, tt.replies...)
			answered := make(chan struct{}, 1<<10)
			client := newClient(s, func(cfg *model.Config) {
				cfg.HTTPClient = &http.Client{Transport: &answerCounter{next: http.DefaultTransport, answered: answered}}
			})
			var ctx context.Context
			var end func()
			if tt.cancel {
				c, cancel := context.WithCancel(t.Context())
				defer cancel()
				ctx, end = c, cancel
			} else {
				d := newEventDeadline(t.Context())
				ctx, end = d, d.pass
			}
			returned := make(chan error, 1)
			go func() {
				_, err := client.Complete(ctx, conversation())
				returned <- err
			}()
			wait, stop := context.WithTimeout(t.Context(), testkit.Patience)
			defer stop()
			if err := s.WaitRequests(wait, tt.arrived); err != nil {
				t.Fatal(err)
			}
			for i := range tt.answered {
				testkit.Receive(t, answered, fmt.Sprintf("the client to read reply %d of %d", i+1, tt.answered))
			}
			end()
			err := testkit.Receive(t, returned, "Complete to return once its context ended")
			me := asModelError(t, err)
			if me.Kind != model.KindCanceled || !errors.Is(err, tt.want) || me.Status != tt.wantStatus {
				t.Errorf("error = %v (kind %v status %d), want canceled matching %v with status %d", err, me.Kind, me.Status, tt.want, tt.wantStatus)
			}
			if tt.want == context.Canceled && errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a cancellation matches context.DeadlineExceeded: %v", err)
			}
			if !strings.Contains(err.Error(), tt.wantInError) {
				t.Errorf("error = %q, want it to contain %q", err, tt.wantInError)
			}
			if n := len(s.Requests()); !tt.checkReqs(n) {
				t.Errorf("server got %d requests", n)
			}
		})
	}
}
