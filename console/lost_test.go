package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A live run silent since before is marked lost, keeping the status it
// had; word from it makes it live again in that status; a run with its
// report, or one heard from since, is never lost.
func TestStoreLostRuns(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ctx := open(t), t.Context()
			put := func(id, status, report string) {
				_, err := s.PutRun(ctx, &Run{SessionID: id, Repo: "acme/app", Trigger: TriggerCLI, Actor: "alice", Owner: "user:1",
					Status: status, StartedAt: t0, ReceivedAt: t0, Report: json.RawMessage(report)})
				require.NoError(t, err)
			}
			status := func(id string) string {
				r, err := s.GetRun(ctx, id)
				require.NoError(t, err)
				return r.Status
			}
			put("s-silent", "idle", "")
			put("s-talking", "active", "")
			put("s-reported", "completed", `{"id":"s-reported"}`)
			for _, id := range []string{"s-silent", "s-reported"} {
				require.NoError(t, s.HeardFrom(ctx, id, t0))
			}
			require.NoError(t, s.HeardFrom(ctx, "s-talking", t0.Add(4*time.Minute)))

			n, err := s.ExpireLive(ctx, t0.Add(time.Minute))
			require.NoError(t, err)
			assert.Equal(t, int64(1), n, "only the silent live run")
			assert.Equal(t, StatusLost, status("s-silent"))
			assert.Equal(t, "active", status("s-talking"))
			assert.Equal(t, "completed", status("s-reported"))
			r, err := s.GetRun(ctx, "s-silent")
			require.NoError(t, err)
			assert.Equal(t, t0, r.SeenAt, "when it was last heard from")
			lost, err := s.ListRuns(ctx, RunFilter{Status: StatusLost})
			require.NoError(t, err)
			require.Len(t, lost, 1)
			assert.Equal(t, "s-silent", lost[0].SessionID)
			n, err = s.ExpireLive(ctx, t0.Add(time.Minute))
			require.NoError(t, err)
			assert.Zero(t, n, "a lost run is marked once")

			require.NoError(t, s.HeardFrom(ctx, "s-silent", t0.Add(10*time.Minute)))
			assert.Equal(t, "idle", status("s-silent"), "heard from again: live, in the status it had")
			n, err = s.ExpireLive(ctx, t0.Add(5*time.Minute))
			require.NoError(t, err)
			assert.Equal(t, int64(1), n, "s-talking, silent since 4m")
			require.NoError(t, s.SetLive(ctx, "s-talking", LiveProgress{Status: "idle"}))
			assert.Equal(t, "idle", status("s-talking"), "a state event makes it live again too")

			_, err = s.ExpireLive(ctx, t0.Add(time.Hour))
			require.NoError(t, err)
			put("s-silent", "completed", `{"id":"s-silent"}`)
			assert.Equal(t, "completed", status("s-silent"), "the report replaces a lost run")
			require.NoError(t, s.HeardFrom(ctx, "s-silent", t0.Add(2*time.Hour)))
			assert.Equal(t, "completed", status("s-silent"), "late word does not undo the report")
		})
	}
}

// A serve that died leaves its run silent: past Config.LiveExpiry the
// console shows it lost (the API, the runs list, the page), refuses
// messages to it, and its next poll makes it live again.
func TestLiveRunLost(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, open(t), func(c *Config) { c.LiveExpiry = 3 * time.Minute })
			status, raw := h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, events(0, 2, "active"))
			require.Equal(t, http.StatusOK, status, string(raw))
			look := func() (string, bool) {
				t.Helper()
				status, raw := h.call(t, http.MethodGet, "/api/session-runs/s-live/events", h.bob, nil)
				require.Equal(t, http.StatusOK, status, string(raw))
				var got struct {
					Status string `json:"status"`
					Live   bool   `json:"live"`
				}
				require.NoError(t, json.Unmarshal(raw, &got))
				return got.Status, got.Live
			}
			st, live := look()
			assert.Equal(t, "active", st)
			assert.True(t, live)

			h.clock.advance(2 * time.Minute)
			st, _ = look()
			assert.Equal(t, "active", st, "silent for less than LiveExpiry")

			h.clock.advance(2 * time.Minute)
			st, live = look()
			assert.Equal(t, StatusLost, st, "silent for 4m, past the 3m LiveExpiry")
			assert.False(t, live, "the page stops following it")
			status, raw = h.call(t, http.MethodGet, "/api/session-runs?status=lost", h.bob, nil)
			require.Equal(t, http.StatusOK, status, string(raw))
			assert.Contains(t, string(raw), `"session_id":"s-live"`)
			v, _ := h.signIn(t, "alice")
			resp, page := v.get(t, "/runs/s-live")
			require.Equal(t, http.StatusOK, resp.StatusCode, page)
			assert.Contains(t, page, `id="lost"`)
			assert.Contains(t, page, "nothing heard from the run since")
			assert.Contains(t, page, "2026-12-01 09:00 UTC")
			assert.NotContains(t, page, `id="message-form"`, "a lost run takes no messages")
			resp, body := v.post(t, "/runs/s-live/control", url.Values{"csrf": {v.csrf}, "action": {"message"}, "text": {"still there?"}})
			assert.Equal(t, http.StatusConflict, resp.StatusCode, body)
			assert.Contains(t, body, "run s-live is lost: nothing was heard from it since 2026-12-01 09:00 UTC")
			assert.Equal(t, "refuse", h.lastAudit(t).Action)

			// The run was only cut off: its next poll for controls is word
			// from it, and it is live again.
			status, raw = h.call(t, http.MethodGet, "/api/session-runs/s-live/controls?wait=0s", h.alice, nil)
			require.Equal(t, http.StatusNoContent, status, string(raw))
			h.clock.advance(sweepEvery)
			st, live = look()
			assert.Equal(t, "active", st)
			assert.True(t, live)
		})
	}
}
