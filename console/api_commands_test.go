package console

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

func TestQueueCallers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	enqueue := map[string]any{"repo": "acme/app", "instruction": "fix the flaky test"}
	tests := []struct {
		name       string
		token      string
		body       any
		want       int
		wantReason string
	}{
		{name: "installation token", token: h.install, body: enqueue, want: http.StatusForbidden, wantReason: "only with a user's token"},
		{name: "personal token", token: h.pat, body: enqueue, want: http.StatusForbidden, wantReason: "not a user token of this GitHub App"},
		{name: "user token of another app", token: h.aliceForeign, body: enqueue, want: http.StatusForbidden, wantReason: "cannot see"},
		{name: "naming someone else's machine", token: h.alice, body: map[string]any{"repo": "acme/app", "instruction": "x", "target": "bob"}, want: http.StatusBadRequest, wantReason: "unknown field"},
		{name: "another organisation", token: h.alice, body: map[string]any{"repo": "elsewhere/thing", "instruction": "x"}, want: http.StatusBadRequest, wantReason: "not in acme"},
		{name: "empty instruction", token: h.alice, body: map[string]any{"repo": "acme/app", "instruction": " "}, want: http.StatusBadRequest, wantReason: "the instruction is empty"},
		{name: "bad timeout", token: h.alice, body: map[string]any{"repo": "acme/app", "instruction": "x", "limits": map[string]any{"timeout": "soon"}}, want: http.StatusBadRequest, wantReason: "limits.timeout"},
		{name: "user token of the App", token: h.alice, body: enqueue, want: http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := h.call(t, http.MethodPost, "/api/session-commands", tt.token, tt.body)
			require.Equal(t, tt.want, status, string(body))
			if tt.wantReason != "" {
				assert.Contains(t, string(body), tt.wantReason)
				e := h.lastAudit(t)
				assert.Equal(t, "refuse", e.Action)
				assert.Contains(t, e.Reason, tt.wantReason)
				return
			}
			c := command(t, body)
			assert.Equal(t, "alice", c.Target, "the target is the verified login")
			assert.Equal(t, CommandQueued, c.State)
			assert.Equal(t, "enqueue", h.lastAudit(t).Action)
		})
	}
	status, _ := h.call(t, http.MethodGet, "/api/session-commands?wait=0s", h.bob, nil)
	assert.Equal(t, http.StatusNoContent, status, "bob gets none of alice's work")
	status, _ = h.call(t, http.MethodGet, "/api/session-commands?wait=0s", h.install, nil)
	assert.Equal(t, http.StatusForbidden, status, "installation tokens claim nothing")
	status, body := h.call(t, http.MethodGet, "/api/session-commands?wait=0s", h.alice, nil)
	require.Equal(t, http.StatusOK, status)
	c := command(t, body)
	assert.Equal(t, "fix the flaky test", c.Instruction)
	assert.NotEmpty(t, c.Claim)
	e := h.lastAudit(t)
	assert.Equal(t, "claim", e.Action)
	assert.Equal(t, "alice", e.Actor)
}

func TestLongPollWakesOnEnqueue(t *testing.T) {
	t.Parallel()
	// Recheck is an hour: only the enqueue can wake the poll before its
	// 50 seconds are up, and a poll that slept through it answers 204.
	h := newHarness(t, sqliteStore(t), func(c *Config) { c.MaxWait = time.Minute })
	type answer struct {
		status int
		body   []byte
	}
	got := make(chan answer, 1)
	go func() {
		s, b := h.call(t, http.MethodGet, "/api/session-commands?wait=50s", h.alice, nil)
		got <- answer{s, b}
	}()
	status, _ := h.call(t, http.MethodPost, "/api/session-commands", h.alice2, map[string]any{"repo": "acme/app", "instruction": "wake up"})
	require.Equal(t, http.StatusCreated, status)
	a := testkit.Receive(t, got, "the long-poll to return the queued instruction")
	require.Equal(t, http.StatusOK, a.status, string(a.body))
	assert.Equal(t, "wake up", command(t, a.body).Instruction)
}

func TestLongPollTimesOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	status, _ := h.call(t, http.MethodGet, "/api/session-commands?wait=20ms", h.alice, nil)
	assert.Equal(t, http.StatusNoContent, status)
	status, body := h.call(t, http.MethodGet, "/api/session-commands?wait=2h", h.alice, nil)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, string(body), "wait must be a duration from 0s to 1m0s")
}

func TestTwoPollersRace(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	status, _ := h.call(t, http.MethodPost, "/api/session-commands", h.alice, map[string]any{"repo": "acme/app", "instruction": "once"})
	require.Equal(t, http.StatusCreated, status)
	statuses := make(chan int, 2)
	var wg sync.WaitGroup
	for _, tok := range []string{h.alice, h.alice2} {
		wg.Go(func() {
			s, _ := h.call(t, http.MethodGet, "/api/session-commands?wait=100ms", tok, nil)
			statuses <- s
		})
	}
	wg.Wait()
	close(statuses)
	var ok, none int
	for s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusNoContent:
			none++
		}
	}
	assert.Equal(t, 1, ok, "one poller claims it")
	assert.Equal(t, 1, none, "the other gets nothing")
}

func TestExpiredLeaseAndResults(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t), func(c *Config) { c.Lease = 10 * time.Minute })
	h.call(t, http.MethodPost, "/api/session-commands", h.alice, map[string]any{"repo": "acme/app", "instruction": "slow"})
	_, body := h.call(t, http.MethodGet, "/api/session-commands", h.alice, nil)
	first := command(t, body)
	status, _ := h.call(t, http.MethodGet, "/api/session-commands", h.alice2, nil)
	assert.Equal(t, http.StatusNoContent, status, "held by a live lease")

	h.clock.advance(11 * time.Minute)
	status, body = h.call(t, http.MethodGet, "/api/session-commands", h.alice2, nil)
	require.Equal(t, http.StatusOK, status, "an expired lease returns it to the queue")
	second := command(t, body)
	assert.Equal(t, first.ID, second.ID)
	assert.NotEqual(t, first.Claim, second.Claim)

	path := "/api/session-commands/" + strconv.FormatInt(first.ID, 10) + "/result"
	status, body = h.call(t, http.MethodPost, path, h.alice, Result{Claim: first.Claim, Status: "succeeded"})
	assert.Equal(t, http.StatusConflict, status, "the first claimer lost its lease")
	assert.Contains(t, string(body), "is not held by claim")
	status, body = h.call(t, http.MethodPost, path, h.bob, Result{Claim: second.Claim, Status: "succeeded"})
	assert.Equal(t, http.StatusNotFound, status, "not bob's: "+string(body))
	status, body = h.call(t, http.MethodPost, path, h.alice2, Result{Claim: second.Claim, Status: "bogus"})
	assert.Equal(t, http.StatusBadRequest, status, string(body))
	status, body = h.call(t, http.MethodPost, path, h.alice2, Result{Claim: second.Claim, Status: "succeeded", Summary: "done", PRURL: "https://x/pull/1"})
	require.Equal(t, http.StatusOK, status, string(body))
	assert.Equal(t, CommandDone, command(t, body).State)
	assert.Equal(t, "result", h.lastAudit(t).Action)
	status, body = h.call(t, http.MethodPost, path, h.alice2, Result{Claim: second.Claim, Status: "failed"})
	assert.Equal(t, http.StatusConflict, status, "a result is accepted once")
	assert.Contains(t, string(body), "already has its result")
	assert.Equal(t, "refuse", h.lastAudit(t).Action)
}

func TestCloseEndsLongPolls(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	got := make(chan *http.Response, 1)
	go func() {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, h.srv.URL+"/api/session-commands?wait=50s", nil)
		if !assert.NoError(t, err) {
			return
		}
		req.Header.Set("Authorization", "Bearer "+h.alice)
		resp, err := http.DefaultClient.Do(req)
		if assert.NoError(t, err) {
			resp.Body.Close()
		}
		got <- resp
	}()
	h.console.Close()
	resp := testkit.Receive(t, got, "the long-poll to end when the console closes")
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "a shutting-down console lets its pollers go")
	assert.Equal(t, "1", resp.Header.Get("Retry-After"), "and tells them to come back, not that the wait ran out")
}

func TestRenewLease(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t), func(c *Config) { c.Lease = 10 * time.Minute })
	h.call(t, http.MethodPost, "/api/session-commands", h.alice, map[string]any{"repo": "acme/app", "instruction": "long"})
	_, body := h.call(t, http.MethodGet, "/api/session-commands", h.alice, nil)
	c := command(t, body)
	path := "/api/session-commands/" + strconv.FormatInt(c.ID, 10) + "/lease"
	h.clock.advance(8 * time.Minute)
	status, body := h.call(t, http.MethodPost, path, h.alice, map[string]any{"claim": c.Claim})
	require.Equal(t, http.StatusOK, status, string(body))
	h.clock.advance(8 * time.Minute)
	status, _ = h.call(t, http.MethodGet, "/api/session-commands", h.alice2, nil)
	assert.Equal(t, http.StatusNoContent, status, "the renewed lease still holds 16 minutes in")
	status, body = h.call(t, http.MethodPost, path, h.alice2, map[string]any{"claim": "not-mine"})
	assert.Equal(t, http.StatusConflict, status)
	assert.Contains(t, string(body), "is not held by claim")
	assert.Equal(t, "refuse", h.lastAudit(t).Action)
}
