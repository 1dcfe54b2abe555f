package model

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter caps how long a server's Retry-After can make us wait
// before one attempt.
const maxRetryAfter = time.Minute

func (b Backoff) withDefaults() Backoff {
	def := DefaultBackoff()
	if b.Initial <= 0 {
		b.Initial = def.Initial
	}
	if b.Max <= 0 {
		b.Max = max(def.Max, b.Initial)
	}
	if b.Max < b.Initial {
		b.Max = b.Initial
	}
	return b
}

// delay is the wait after failed attempt n (1-based): Initial·2^(n-1)
// capped at Max, jittered into [d/2, d], and at least the server's
// Retry-After (itself capped at maxRetryAfter).
func (b Backoff) delay(n int, retryAfter time.Duration) time.Duration {
	d := b.Initial
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	half := d / 2
	d = half + rand.N(d-half+1)
	return max(d, min(retryAfter, maxRetryAfter))
}

// responseMeta carries what go-openai does not expose from an error
// response: the Retry-After header.
type responseMeta struct {
	retryAfter time.Duration
}

type responseMetaKey struct{}

func withResponseMeta(ctx context.Context, m *responseMeta) context.Context {
	return context.WithValue(ctx, responseMetaKey{}, m)
}

// metaTransport records response metadata into the request's
// responseMeta. RoundTrip runs on the goroutine that called Do, so the
// caller reads the record after Do returns without a race.
type metaTransport struct {
	base http.RoundTripper
}

func (t metaTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if m, ok := req.Context().Value(responseMetaKey{}).(*responseMeta); ok {
		m.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return resp, nil
}

// withRetryAfter returns a copy of hc (or a new client) whose transport
// records Retry-After headers.
func withRetryAfter(hc *http.Client) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = metaTransport{base: base}
	return &c
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or
// unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(min(secs, int(maxRetryAfter/time.Second))) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}
