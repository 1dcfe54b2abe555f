package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func TestBackoffDelay(t *testing.T) {
	t.Parallel()
	b := Backoff{Initial: 100 * time.Millisecond, Max: time.Second}
	tests := []struct {
		name       string
		attempt    int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{name: "first", attempt: 1, lo: 50 * time.Millisecond, hi: 100 * time.Millisecond},
		{name: "second doubles", attempt: 2, lo: 100 * time.Millisecond, hi: 200 * time.Millisecond},
		{name: "fourth", attempt: 4, lo: 400 * time.Millisecond, hi: 800 * time.Millisecond},
		{name: "capped at max", attempt: 30, lo: 500 * time.Millisecond, hi: time.Second},
		{name: "huge attempt does not overflow", attempt: 1 << 20, lo: 500 * time.Millisecond, hi: time.Second},
		{name: "Retry-After raises the wait", attempt: 1, retryAfter: 3 * time.Second, lo: 3 * time.Second, hi: 3 * time.Second},
		{name: "short Retry-After does not lower it", attempt: 4, retryAfter: time.Millisecond, lo: 400 * time.Millisecond, hi: 800 * time.Millisecond},
		{name: "Retry-After is capped", attempt: 1, retryAfter: time.Hour, lo: maxRetryAfter, hi: maxRetryAfter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for range 200 { // jitter: sample
				if d := b.delay(tt.attempt, tt.retryAfter); d < tt.lo || d > tt.hi {
					t.Fatalf("delay(%d, %v) = %v, want within [%v, %v]", tt.attempt, tt.retryAfter, d, tt.lo, tt.hi)
				}
			}
		})
	}
}

func TestBackoffDefaults(t *testing.T) {
	t.Parallel()
	def := DefaultBackoff()
	tests := []struct {
		name string
		in   Backoff
		want Backoff
	}{
		{name: "zero", in: Backoff{}, want: def},
		{name: "only initial", in: Backoff{Initial: time.Millisecond}, want: Backoff{Initial: time.Millisecond, Max: def.Max}},
		{name: "max below initial", in: Backoff{Initial: time.Second, Max: time.Millisecond}, want: Backoff{Initial: time.Second, Max: time.Second}},
		{name: "large initial only", in: Backoff{Initial: time.Hour}, want: Backoff{Initial: time.Hour, Max: time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.in.withDefaults(); got != tt.want {
				t.Errorf("withDefaults(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want time.Duration
	}{
		{name: "absent", in: "", want: 0},
		{name: "seconds", in: "7", want: 7 * time.Second},
		{name: "seconds capped", in: "86400", want: maxRetryAfter},
		{name: "negative", in: "-3", want: 0},
		{name: "HTTP date", in: "Sun, 01 Jun 2025 12:00:30 GMT", want: 30 * time.Second},
		{name: "date in the past", in: "Sun, 01 Jun 2025 11:00:00 GMT", want: 0},
		{name: "garbage", in: "soon", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := parseRetryAfter(tt.in, now); got != tt.want {
				t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	opErr := func(errno error) error {
		return &url.Error{Op: "Post", URL: "http://127.0.0.1:8081/v1/chat/completions",
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: errno}}
	}
	var syntaxErr error = &json.SyntaxError{Offset: 1}
	tests := []struct {
		name       string
		err        error
		wantKind   Kind
		wantStatus int
	}{
		{name: "400", err: &openai.APIError{HTTPStatusCode: 400}, wantKind: KindPersistent, wantStatus: 400},
		{name: "401", err: &openai.APIError{HTTPStatusCode: 401}, wantKind: KindPersistent, wantStatus: 401},
		{name: "404", err: &openai.APIError{HTTPStatusCode: 404}, wantKind: KindPersistent, wantStatus: 404},
		{name: "408", err: &openai.APIError{HTTPStatusCode: 408}, wantKind: KindTransient, wantStatus: 408},
		{name: "429", err: &openai.APIError{HTTPStatusCode: 429}, wantKind: KindTransient, wantStatus: 429},
		{name: "500", err: &openai.APIError{HTTPStatusCode: 500}, wantKind: KindTransient, wantStatus: 500},
		{name: "501", err: &openai.APIError{HTTPStatusCode: 501}, wantKind: KindPersistent, wantStatus: 501},
		{name: "503 non-JSON body", err: &openai.RequestError{HTTPStatusCode: 503}, wantKind: KindTransient, wantStatus: 503},
		{name: "wrapped status", err: fmt.Errorf("x: %w", &openai.APIError{HTTPStatusCode: 502}), wantKind: KindTransient, wantStatus: 502},
		{name: "connection refused", err: opErr(syscall.ECONNREFUSED), wantKind: KindTransient},
		{name: "connection reset", err: opErr(syscall.ECONNRESET), wantKind: KindTransient},
		{name: "other dial failure", err: opErr(syscall.EHOSTUNREACH), wantKind: KindTransient},
		{name: "server closed connection", err: &url.Error{Op: "Post", Err: io.EOF}, wantKind: KindTransient},
		{name: "truncated body", err: io.ErrUnexpectedEOF, wantKind: KindTransient},
		{name: "no choices", err: noChoicesError{}, wantKind: KindTransient},
		{name: "attempt deadline", err: &url.Error{Op: "Post", Err: context.DeadlineExceeded}, wantKind: KindTransient},
		{name: "unknown host", err: &url.Error{Op: "Post", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Name: "nohost", IsNotFound: true}}}, wantKind: KindPersistent},
		{name: "DNS hiccup", err: &net.DNSError{Name: "host", IsTemporary: true}, wantKind: KindTransient},
		{name: "not JSON", err: syntaxErr, wantKind: KindPersistent},
		{name: "unknown", err: errors.New("unsupported protocol scheme"), wantKind: KindPersistent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := classify(tt.err)
			if f.kind != tt.wantKind || f.status != tt.wantStatus {
				t.Errorf("classify(%v) = %v %d, want %v %d", tt.err, f.kind, f.status, tt.wantKind, tt.wantStatus)
			}
			if errors.Is(f.err, context.DeadlineExceeded) {
				t.Errorf("classified error %v still matches context.DeadlineExceeded", f.err)
			}
		})
	}
}
