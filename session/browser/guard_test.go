package browser

import (
	"errors"
	"iter"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLocal is the rule of which URLs stay on this machine's loopback:
// http, https, ws and wss to localhost, 127.0.0.1 or [::1], any port.
// Every other spelling of a loopback address is not local (the guard
// blocks it: the safe side), and a remote host in disguise is not either.
func TestLocal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{"http://localhost", true},
		{"http://localhost:3000/app?x=1#top", true},
		{"https://localhost:8443/", true},
		{"http://LOCALHOST:3000/", true},
		{"HTTP://LocalHost/", true},
		{"http://127.0.0.1:8080/", true},
		{"http://[::1]:5173/", true},
		{"ws://localhost:3000/socket", true},
		{"wss://127.0.0.1/socket", true},
		// Other loopback spellings: not on the list, so not local.
		{"http://0.0.0.0:3000/", false},
		{"http://127.0.0.2/", false},
		{"http://localhost./", false},
		{"http://sub.localhost/", false},
		{"http://[::ffff:127.0.0.1]/", false},
		{"http://[0:0:0:0:0:0:0:1]/", false},
		{"http://2130706433/", false},
		{"http://0x7f000001/", false},
		{"http://0177.0.0.1/", false},
		{"http://127.1/", false},
		// A remote host dressed as a local one.
		{"http://localhost@evil.example/", false},
		{"http://localhost:3000@evil.example/", false},
		{"http://127.0.0.1.evil.example/", false},
		{"http://localhost.evil.example/", false},
		{"http://evil.example/?u=http://localhost/", false},
		{"http://evil.example/#http://localhost/", false},
		{"http://evil.example\\@localhost/", false},
		{"http://evil.example%2f@localhost/", true}, // userinfo, then localhost: local
		// Schemes that are not http or ws.
		{"file:///etc/passwd", false},
		{"file://localhost/etc/passwd", false},
		{"ftp://localhost/", false},
		{"data:text/html,hi", false},
		{"about:blank", false},
		{"javascript:alert(1)", false},
		{"chrome://settings", false},
		{"//localhost/", false},
		{"localhost:3000", false},
		{"", false},
		{"http://[::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Local(tt.url))
		})
	}
}

// TestAllowed is what a page may load: what never leaves the browser
// (data:, blob:, about:), local URLs, and other http(s) and ws(s) hosts
// only with remote loads allowed (an attended run whose person approves
// each navigation; an unattended run never has them).
func TestAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url                string
		unattended, remote bool
	}{
		{"http://localhost:3000/", true, true},
		{"ws://[::1]:3000/", true, true},
		{"data:text/html,<p>hi</p>", true, true},
		{"DATA:text/plain,hi", true, true},
		{"blob:http://localhost:3000/4b1c", true, true},
		{"about:blank", true, true},
		{"https://example.com/", false, true},
		{"http://0.0.0.0:3000/", false, true},
		{"http://localhost@evil.example/", false, true},
		{"http://2130706433/", false, true},
		{"wss://evil.example/socket", false, true},
		{"file:///etc/passwd", false, false},
		{"file://localhost/etc/passwd", false, false},
		{"javascript:fetch('https://evil.example')", false, false},
		{"chrome://settings", false, false},
		{"ftp://example.com/", false, false},
		{"view-source:http://localhost/", false, false},
		{"filesystem:http://localhost/temporary/x", false, false},
		{"", false, false},
		{"http://[::1", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.unattended, allowed(tt.url, false), "remote loads not allowed")
			assert.Equal(t, tt.remote, allowed(tt.url, true), "remote loads allowed")
		})
	}
}

// TestServeBoundsDecisions: a page that fires many requests at once gets
// at most the bound of decisions running, and so of goroutines, however
// slow the browser's answers are; every request is still decided, and
// serve returns only after the last decision.
func TestServeBoundsDecisions(t *testing.T) {
	const requests, limit = 2000, 8
	events := func(yield func(int, error) bool) {
		for i := range requests {
			if !yield(i, nil) {
				return
			}
		}
	}
	release := make(chan struct{})
	var running, most, decided atomic.Int64
	decide := func(int) {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		running.Add(-1)
		decided.Add(1)
	}
	before := runtime.NumGoroutine()
	done := make(chan struct{})
	go func() {
		serve(iter.Seq2[int, error](events), limit, decide)
		close(done)
	}()
	// Wait (bounded) until the bound is reached: serve then holds the rest.
	deadline := time.Now().Add(10 * time.Second)
	for running.Load() < limit && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, int64(limit), running.Load(), "decisions running once the bound is reached")
	time.Sleep(50 * time.Millisecond) // room for an unbounded serve to start more
	grown := runtime.NumGoroutine() - before
	assert.LessOrEqual(t, grown, limit+1, "goroutines started for %d paused requests (serve and its decisions)", requests)
	close(release)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return within 30s of its decisions being released")
	}
	assert.Equal(t, int64(requests), decided.Load(), "every request decided before serve returned")
	assert.LessOrEqual(t, most.Load(), int64(limit), "decisions at once")
}

// TestServeEndsOnError: an error from the events (the tab closed) ends
// serve after the decisions already running.
func TestServeEndsOnError(t *testing.T) {
	t.Parallel()
	events := func(yield func(int, error) bool) {
		for i := range 3 {
			if !yield(i, nil) {
				return
			}
		}
		if !yield(0, errors.New("the tab closed")) {
			return
		}
		t.Error("serve read past the error")
	}
	var decided atomic.Int64
	serve(iter.Seq2[int, error](events), 2, func(int) { time.Sleep(10 * time.Millisecond); decided.Add(1) })
	assert.Equal(t, int64(3), decided.Load())
}
