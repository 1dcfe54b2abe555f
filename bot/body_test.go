package bot

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// countingBody is an endless-looking request body of size bytes that
// counts how many of them were read.
type countingBody struct {
	size, read int64
	n          atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.read >= b.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	if left := b.size - b.read; n > left {
		n = left
	}
	clear(p[:n])
	b.read += n
	b.n.Add(n)
	return int(n), nil
}

func (b *countingBody) Close() error { return nil }

// TestOversizedBodyIsRefusedUnread: an attacker POSTs 26 MiB, unsigned, to
// the webhook. The bot answers 413 and reads no more than GitHub's payload
// limit of it, whether the size is declared or the body is chunked.
func TestOversizedBodyIsRefusedUnread(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	const size = 26 << 20
	tests := []struct {
		name     string
		declared int64 // Content-Length; -1 is chunked
		maxRead  int64
	}{
		{name: "declared length", declared: size, maxRead: 0},
		{name: "chunked", declared: -1, maxRead: MaxPayload + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := &countingBody{size: size}
			req := httptest.NewRequest(http.MethodPost, WebhookPath, body)
			req.ContentLength = tt.declared
			req.Header.Set("X-GitHub-Event", "issue_comment")
			req.Header.Set("X-GitHub-Delivery", "flood")
			rec := httptest.NewRecorder()
			f.bot.handler.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, rec.Body.String())
			assert.Contains(t, rec.Body.String(), "over GitHub's webhook payload limit")
			assert.LessOrEqual(t, body.n.Load(), tt.maxRead, "bytes of the body read")
		})
	}
}

// BenchmarkOversizedBody reports what an unsigned 400 MiB POST costs the
// bot: bytes read of the body and the peak heap growth while it is
// refused (before the cap, the same POST raised the heap by 877 MiB).
func BenchmarkOversizedBody(b *testing.B) {
	f := newFixture(b, nil, nil)
	for _, declared := range []bool{true, false} {
		name := "chunked"
		if declared {
			name = "declared"
		}
		b.Run(name, func(b *testing.B) {
			var read int64
			var peak uint64
			for b.Loop() {
				body := &countingBody{size: 400 << 20}
				req := httptest.NewRequest(http.MethodPost, WebhookPath, body)
				req.ContentLength = -1
				if declared {
					req.ContentLength = body.size
				}
				req.Header.Set("X-GitHub-Event", "issue_comment")
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				rec := httptest.NewRecorder()
				f.bot.handler.ServeHTTP(rec, req)
				runtime.ReadMemStats(&after)
				if rec.Code != http.StatusRequestEntityTooLarge {
					b.Fatalf("answered %d", rec.Code)
				}
				read = body.n.Load()
				if after.HeapInuse > before.HeapInuse {
					peak = max(peak, after.HeapInuse-before.HeapInuse)
				}
			}
			b.ReportMetric(float64(read)/(1<<20), "MiB-read")
			b.ReportMetric(float64(peak)/(1<<20), "MiB-heap")
		})
	}
}

// TestOversizedBodyOverTheWire: the same flood through a real HTTP
// connection gets 413.
func TestOversizedBodyOverTheWire(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	req, err := http.NewRequest(http.MethodPost, f.http.URL+WebhookPath, &countingBody{size: 26 << 20})
	require.NoError(t, err)
	req.ContentLength = 26 << 20
	req.Header.Set("X-GitHub-Event", "issue_comment")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

// TestLargeSignedDeliveryStillWorks: a signed 1 MiB delivery (a comment on
// an issue with a long body) is read whole and starts its run.
func TestLargeSignedDeliveryStillWorks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	var m map[string]any
	require.NoError(t, json.Unmarshal(commentPayload(t, "alice", "User", n, cid, "/core fix", false), &m))
	m["issue"].(map[string]any)["body"] = strings.Repeat("long issue text ", 1<<16)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.Greater(t, len(b), 1<<20)
	assert.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "big-1", b))
	require.Eventually(t, func() bool { return len(f.g.Dispatches("octo", "hello")) == 1 }, testkit.Patience, 20*time.Millisecond, "the run started")

	// The same bytes with a wrong signature are still refused.
	req, err := http.NewRequest(http.MethodPost, f.http.URL+WebhookPath, bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", "big-2")
	req.Header.Set("X-Hub-Signature-256", sign("wrong", b))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestHTTPServerHasTimeouts(t *testing.T) {
	t.Parallel()
	hs := NewHTTPServer(http.NotFoundHandler())
	for name, d := range map[string]int64{
		"ReadHeaderTimeout": int64(hs.ReadHeaderTimeout), "ReadTimeout": int64(hs.ReadTimeout),
		"WriteTimeout": int64(hs.WriteTimeout), "IdleTimeout": int64(hs.IdleTimeout),
	} {
		assert.Positive(t, d, name)
	}
	assert.Less(t, hs.ReadTimeout.Seconds(), 10.0, "GitHub gives up on a delivery after 10 s")
}
