package console

import (
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

// TestBrowserLiveRun follows a live run on its page in Chromium: events
// that arrive after the page opened appear in it, the starter's message
// goes from the box to the run, and the run's acknowledgement shows
// without a reload; when the run reports its end the page shows the
// report.
func TestBrowserLiveRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	status, body := h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, events(0, 3, "active"))
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
	assert.Equal(t, "active", text(`#badges .badge`))
	assert.Equal(t, "The run sends its report when it ends.", text(`#no-report`))

	status, body = h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, events(3, 2, ""))
	require.Equal(t, http.StatusOK, status, string(body))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#events span.ev[data-seq="4"]`))),
		"the page to show the events that came after it opened")
	assert.Contains(t, text(`#events span.ev[data-seq="4"]`), "turn 4  read_file f4.go")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("message"), "also update the README"),
		chromedp.Click(chromedp.ID("send")),
		chromedp.WaitVisible(chromedp.CSS(`li.control.queued`)),
	), "send a message from the box")
	assert.Contains(t, text(`li.control.queued`), "message from alice: also update the README")
	assert.Contains(t, text(`li.control.queued .note`), "waiting for the run to take it")

	status, raw := h.call(t, http.MethodGet, "/api/session-runs/s-live/controls?wait=0s", h.alice, nil)
	require.Equal(t, http.StatusOK, status, string(raw))
	cs, err := h.store.Controls(t.Context(), "s-live")
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
	assert.Equal(t, "completed", text(`#badges .badge`))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#send, #interrupt, #stop').length`))
	require.NoError(t, err)
	assert.Zero(t, n, "an ended run takes nothing more: no box, no buttons")
	assert.Contains(t, text(`#events`), "turn 4  read_file f4.go", "the events stay")
}
