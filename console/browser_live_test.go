package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/browser"
)

// TestBrowserLiveRun follows a live run on its page in Chromium: its goal
// from its first event, events that arrive after the page opened appear
// in it with the turns, tokens and cost moving and the box kept at its
// last line, Stop asks first, the starter's message goes from the box to
// the run, and the run's acknowledgement shows without a reload; when the
// run reports its end the page shows the report.
func TestBrowserLiveRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	status, body := h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, map[string]any{"repo": "acme/app", "seq": 0, "events": []json.RawMessage{
		json.RawMessage(`{"time":"2026-12-01T09:00:00Z","kind":"state","status":"starting","goal":"Fix the flaky login test","cost_usd":0}`),
		json.RawMessage(`{"time":"2026-12-01T09:00:04Z","kind":"turn","turn":1,"tool":"read_file","target":"f1.go","tokens":900,"cost_usd":0.0123}`),
		json.RawMessage(`{"time":"2026-12-01T09:00:05Z","kind":"state","status":"active","goal":"Fix the flaky login test","cost_usd":0.0123}`),
	}})
	require.Equal(t, http.StatusOK, status, string(body))

	ctx := browser.New(t, 90*time.Second)
	h.apps.SignIn("alice")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/login"),
		chromedp.WaitVisible(chromedp.ID("runs")),
		chromedp.Navigate(h.srv.URL+"/runs/s-live"),
		chromedp.WaitVisible(chromedp.ID("events")),
	), "sign in and open the live run")
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err, sel)
		return s
	}
	assert.Contains(t, text(`#events`), "turn 1  read_file f1.go")
	assert.Equal(t, "working", text(`#badges .badge`))
	assert.Equal(t, "Fix the flaky login test", text(`#goal`), "the goal from the first event")
	assert.Equal(t, "$0.0123", text(`#cost`), "the cost of the turns so far, not no price set")
	assert.Equal(t, "1", text(`#turns`))
	assert.Equal(t, "900", text(`#tokens`))
	assert.Equal(t, "The run sends its report when it ends.", text(`#no-report`))

	status, body = h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, events(3, 2, ""))
	require.Equal(t, http.StatusOK, status, string(body))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#events span.ev[data-seq="4"]`))),
		"the page to show the events that came after it opened")
	assert.Contains(t, text(`#events span.ev[data-seq="4"]`), "turn 4  read_file f4.go")
	assert.Equal(t, "4", text(`#turns`), "the turns move without a reload")

	more := []json.RawMessage{}
	for i := range 60 {
		more = append(more, json.RawMessage(fmt.Sprintf(`{"time":"2026-12-01T09:01:00Z","kind":"output","text":"--- PASS: TestLogin/%d\n"}`, i)))
	}
	more = append(more, json.RawMessage(`{"time":"2026-12-01T09:01:30Z","kind":"turn","turn":5,"tool":"edit_file","target":"login_test.go","tokens":2100,"cost_usd":0.0305}`))
	status, body = h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, map[string]any{"repo": "acme/app", "seq": 5, "events": more})
	require.Equal(t, http.StatusOK, status, string(body))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#events span.ev[data-seq="65"]`))),
		"the page to show the last event, scrolled to it")
	assert.Equal(t, "$0.0305", text(`#cost`), "the cost moves")
	assert.Equal(t, "2100", text(`#tokens`))
	assert.Equal(t, "5", text(`#turns`))
	atEnd, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const box = document.getElementById('events-box').getBoundingClientRect();
		const last = document.querySelector('#events span.ev[data-seq="65"]').getBoundingClientRect();
		return box.height < document.getElementById('events').scrollHeight && last.bottom <= box.bottom + 1 && last.top >= box.top - 1;
	})()`))
	require.NoError(t, err)
	assert.True(t, atEnd, "the events box overflows and shows its last line")
	browser.Screenshot(ctx, t, "run-live-progress")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("stop")),
		chromedp.WaitVisible(chromedp.ID("stop-confirm")),
	), "Stop asks first")
	browser.Screenshot(ctx, t, "run-live-stop-confirm")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("stop-cancel")),
		chromedp.WaitVisible(chromedp.ID("stop")),
	), "and keeps the run when told to")
	cs, err := h.store.Controls(t.Context(), "s-live")
	require.NoError(t, err)
	assert.Empty(t, cs, "nothing was sent")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("message"), "also update the README"),
		chromedp.Click(chromedp.ID("send")),
		chromedp.WaitVisible(chromedp.CSS(`li.control.queued`)),
	), "send a message from the box")
	assert.Contains(t, text(`li.control.queued`), "message from alice: also update the README")
	assert.Contains(t, text(`li.control.queued .note`), "waiting for the run to take it")

	status, raw := h.call(t, http.MethodGet, "/api/session-runs/s-live/controls?wait=0s", h.alice, nil)
	require.Equal(t, http.StatusOK, status, string(raw))
	cs, err = h.store.Controls(t.Context(), "s-live")
	require.NoError(t, err)
	require.Len(t, cs, 1)
	status, raw = h.call(t, http.MethodPost, fmt.Sprintf("/api/session-runs/s-live/controls/%d", cs[0].ID), h.alice,
		map[string]any{"ack": "received: the run reads it before its next turn"})
	require.Equal(t, http.StatusOK, status, string(raw))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`li.control.acknowledged`))),
		"the page to show the run's acknowledgement")
	assert.Equal(t, "received: the run reads it before its next turn", text(`li.control.acknowledged .note`))
	browser.Screenshot(ctx, t, "run-live")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("interrupt")),
		chromedp.WaitVisible(chromedp.CSS(`li.control.queued`)),
	), "the Interrupt button")
	assert.True(t, strings.HasPrefix(text(`li.control.queued`), "interrupt from alice"))

	status, raw = h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("s-live", "completed", landedFields))
	require.Equal(t, http.StatusOK, status, string(raw))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("timeline"))),
		"the page to show the report once the run has ended")
	assert.Equal(t, "completed, contract held", text(`#badges .badge`))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#send, #interrupt, #stop').length`))
	require.NoError(t, err)
	assert.Zero(t, n, "an ended run takes nothing more: no box, no buttons")
	assert.Contains(t, text(`#events`), "turn 4  read_file f4.go", "the events stay")
}
