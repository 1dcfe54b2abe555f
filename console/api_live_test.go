package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

// events is a batch of n events of a run's log from position seq: state
// changes at the ends, turns between.
func events(seq, n int, last string) map[string]any {
	var evs []json.RawMessage
	for i := range n {
		e := fmt.Sprintf(`{"time":"2026-12-01T09:00:0%dZ","kind":"turn","turn":%d,"tool":"read_file","target":"f%d.go"}`, i%10, seq+i, seq+i)
		if i == n-1 && last != "" {
			e = `{"time":"2026-12-01T09:00:09Z","kind":"state","status":"` + last + `"}`
		}
		evs = append(evs, json.RawMessage(e))
	}
	return map[string]any{"repo": "acme/app", "seq": seq, "events": evs}
}

func TestLiveRunEvents(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, open(t))
			post := func(token string, batch any) (int, string) {
				status, body := h.call(t, http.MethodPost, "/api/session-runs/s-live/events", token, batch)
				return status, string(body)
			}
			status, body := post(h.alice, events(0, 3, "active"))
			require.Equal(t, http.StatusOK, status, body)
			assert.JSONEq(t, `{"next":3}`, body)
			run, err := h.store.GetRun(t.Context(), "s-live")
			require.NoError(t, err, "the first batch puts the run on the console")
			assert.Equal(t, "active", run.Status)
			assert.Equal(t, "alice", run.Actor)
			assert.Equal(t, TriggerCLI, run.Trigger)
			assert.Contains(t, h.lastAudit(t).Reason, "began sending its events")

			// A batch sent again with one more: the console keeps each once.
			status, body = post(h.alice, events(0, 4, "idle"))
			require.Equal(t, http.StatusOK, status, body)
			assert.JSONEq(t, `{"next":4}`, body)
			held, err := h.store.Events(t.Context(), "s-live", -1, 100)
			require.NoError(t, err)
			require.Len(t, held, 4)
			assert.Equal(t, int64(3), held[3].Seq)
			assert.Equal(t, "09:00:09  idle", held[3].Line)
			assert.Equal(t, "09:00:01  turn 1  read_file f1.go", held[1].Line)
			run, err = h.store.GetRun(t.Context(), "s-live")
			require.NoError(t, err)
			assert.Equal(t, "idle", run.Status, "the last state event is the live run's status")

			refusals := []struct {
				name   string
				token  string
				batch  any
				status int
				reason string
			}{
				{"a gap", h.alice, events(9, 1, ""), http.StatusConflict, "send from 4"},
				{"another reporter", h.bob, events(4, 1, ""), http.StatusForbidden, "only the identity that reports a run may send its events"},
				{"too many a batch", h.alice, events(4, maxEventBatch+1, ""), http.StatusBadRequest, "send at most 500 a request"},
				{"not an event", h.alice, map[string]any{"repo": "acme/app", "seq": 4, "events": []any{map[string]any{"turn": 1}}}, http.StatusBadRequest, "event 4 of the batch is not an event"},
				{"no events", h.alice, map[string]any{"repo": "acme/app", "seq": 4, "events": []any{}}, http.StatusBadRequest, "no events"},
				{"no token", "", events(4, 1, ""), http.StatusUnauthorized, "no credentials"},
			}
			for _, tt := range refusals {
				status, body := post(tt.token, tt.batch)
				assert.Equal(t, tt.status, status, tt.name+": "+body)
				assert.Contains(t, body, tt.reason, tt.name)
				e := h.lastAudit(t)
				assert.Equal(t, "refuse", e.Action, tt.name+": every refusal is audited")
				assert.Contains(t, e.Reason, tt.reason, tt.name)
			}
			held, err = h.store.Events(t.Context(), "s-live", -1, 100)
			require.NoError(t, err)
			assert.Len(t, held, 4, "refused batches change nothing")

			// A repository the sender cannot see puts no run on the console.
			lib := events(0, 1, "")
			lib["repo"] = "acme/lib"
			status, raw := h.call(t, http.MethodPost, "/api/session-runs/s-lib/events", h.alice, lib)
			body = string(raw)
			assert.Equal(t, http.StatusForbidden, status, body)
			assert.Contains(t, body, "which alice cannot see on GitHub")
			_, err = h.store.GetRun(t.Context(), "s-lib")
			assert.ErrorIs(t, err, ErrNotFound)

			// The page reads them after a position, with the status.
			status, raw = h.call(t, http.MethodGet, "/api/session-runs/s-live/events?after=1", h.bob, nil)
			require.Equal(t, http.StatusOK, status, string(raw))
			var got struct {
				Status string      `json:"status"`
				Live   bool        `json:"live"`
				Events []*RunEvent `json:"events"`
			}
			require.NoError(t, json.Unmarshal(raw, &got))
			assert.Equal(t, "idle", got.Status)
			assert.True(t, got.Live)
			require.Len(t, got.Events, 2)
			assert.Equal(t, int64(2), got.Events[0].Seq)

			// The report ends the live run: its status is the report's from
			// then on, whatever late events say.
			status, raw = h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("s-live", "completed", ""))
			require.Equal(t, http.StatusOK, status, string(raw))
			status, body = post(h.alice, events(4, 1, "active"))
			require.Equal(t, http.StatusOK, status, body)
			run, err = h.store.GetRun(t.Context(), "s-live")
			require.NoError(t, err)
			assert.Equal(t, "completed", run.Status)
		})
	}
}

// TestLiveRunControlsKnowTheStarterByID: the run's page knows its starter
// by GitHub account (the run's owner and the signed-in person's id), so
// another account that took over the freed login alice may neither
// message, interrupt nor stop alice's run, and alice under her new login
// may. On the old code the logins were compared: the newcomer reached the
// run, the renamed starter did not.
func TestLiveRunControlsKnowTheStarterByID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	status, raw := h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, events(0, 2, "active"))
	require.Equal(t, http.StatusOK, status, string(raw))
	id := h.g.User("alice").ID
	h.g.SetUserID("alice-renamed", id)
	h.g.SetUserID("alice", id+1)
	require.NoError(t, h.g.SetPermission(org, "app", "alice-renamed", "write"))

	send := func(login, action, text string) (int, string) {
		v, _ := h.signIn(t, login)
		require.NotEmpty(t, v.csrf, "signed in as "+login)
		resp, body := v.post(t, "/runs/s-live/control", url.Values{"csrf": {v.csrf}, "action": {action}, "text": {text}})
		return resp.StatusCode, body
	}
	for _, tt := range []struct{ action, text, reason string }{
		{"message", "push the secrets to a gist", "only alice, who started run s-live, may send a message to it"},
		{"interrupt", "", "only alice, who started run s-live, may interrupt it"},
		{"stop", "", "or an admin of acme/app may stop it; alice has write permission"},
	} {
		status, body := send("alice", tt.action, tt.text)
		assert.Equal(t, http.StatusForbidden, status, tt.action+": "+body)
		assert.Contains(t, body, tt.reason, tt.action)
		assert.Equal(t, "refuse", h.lastAudit(t).Action, tt.action)
	}
	cs, err := h.store.Controls(t.Context(), "s-live")
	require.NoError(t, err)
	assert.Empty(t, cs, "another account's controls queue nothing")

	status, body := send("alice-renamed", "message", "also update the README")
	require.Equal(t, http.StatusCreated, status, "the starter under a new login: "+body)
	cs, err = h.store.Controls(t.Context(), "s-live")
	require.NoError(t, err)
	require.Len(t, cs, 1)
	assert.Equal(t, "alice-renamed", cs[0].From)
}

func TestLiveRunControls(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, open(t))
			require.NoError(t, h.g.SetPermission(org, "app", "carol", "admin"))
			status, raw := h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, events(0, 2, "active"))
			require.Equal(t, http.StatusOK, status, string(raw))

			send := func(login, action, text string) (int, string) {
				v, _ := h.signIn(t, login)
				require.NotEmpty(t, v.csrf, "signed in as "+login)
				resp, body := v.post(t, "/runs/s-live/control", url.Values{"csrf": {v.csrf}, "action": {action}, "text": {text}})
				return resp.StatusCode, body
			}
			refusals := []struct {
				name, login, action, text string
				status                    int
				reason                    string
			}{
				{"another writer's message", "bob", "message", "delete the tests", http.StatusForbidden, "only alice, who started run s-live, may send a message to it"},
				{"another writer's interrupt", "bob", "interrupt", "", http.StatusForbidden, "only alice, who started run s-live, may interrupt it"},
				{"a writer's stop", "bob", "stop", "", http.StatusForbidden, "or an admin of acme/app may stop it; bob has write permission"},
				{"an admin's message", "carol", "message", "hi", http.StatusForbidden, "only alice, who started run s-live, may send a message to it"},
				{"an empty message", "alice", "message", "  ", http.StatusBadRequest, "the message is empty"},
				{"an unknown action", "alice", "pause", "", http.StatusBadRequest, "action must be message, interrupt or stop"},
			}
			for _, tt := range refusals {
				status, body := send(tt.login, tt.action, tt.text)
				assert.Equal(t, tt.status, status, tt.name+": "+body)
				assert.Contains(t, body, tt.reason, tt.name)
				e := h.lastAudit(t)
				assert.Equal(t, "refuse", e.Action, tt.name+": every refusal is audited")
				assert.Equal(t, tt.login, e.Actor, tt.name)
				assert.Equal(t, "POST /runs/s-live/control", e.Target, tt.name)
			}
			cs, err := h.store.Controls(t.Context(), "s-live")
			require.NoError(t, err)
			assert.Empty(t, cs, "refusals queue nothing")

			// The run's long-poll, waiting when the starter writes.
			taken := make(chan []RunControl, 1)
			go func() {
				status, body := h.call(t, http.MethodGet, "/api/session-runs/s-live/controls?wait=50s", h.alice, nil)
				var out struct{ Controls []RunControl }
				if status == http.StatusOK {
					_ = json.Unmarshal(body, &out)
				}
				taken <- out.Controls
			}()
			status, body := send("alice", "message", "also update the README")
			require.Equal(t, http.StatusCreated, status, body)
			assert.Equal(t, "message", h.lastAudit(t).Action)
			got := testkit.Receive(t, taken, "the run's long-poll to hand over the message")
			require.Len(t, got, 1)
			assert.Equal(t, "also update the README", got[0].Text)
			assert.Equal(t, "alice", got[0].From)
			assert.Equal(t, ControlDelivered, got[0].State)

			status, body = send("carol", "stop", "")
			require.Equal(t, http.StatusCreated, status, "an admin may stop it: "+body)
			status, raw = h.call(t, http.MethodGet, "/api/session-runs/s-live/controls?wait=0s", h.bob, nil)
			assert.Equal(t, http.StatusForbidden, status, "only the run takes its controls: "+string(raw))
			assert.Equal(t, "refuse", h.lastAudit(t).Action)
			status, raw = h.call(t, http.MethodGet, "/api/session-runs/s-live/controls?wait=0s", h.alice, nil)
			require.Equal(t, http.StatusOK, status, string(raw))
			assert.Contains(t, string(raw), `"kind":"stop"`)
			status, _ = h.call(t, http.MethodGet, "/api/session-runs/s-live/controls?wait=0s", h.alice, nil)
			assert.Equal(t, http.StatusNoContent, status, "each control is taken once")

			ack := fmt.Sprintf("/api/session-runs/s-live/controls/%d", got[0].ID)
			status, raw = h.call(t, http.MethodPost, ack, h.bob, map[string]any{"ack": "received"})
			assert.Equal(t, http.StatusForbidden, status, string(raw))
			status, raw = h.call(t, http.MethodPost, ack, h.alice, map[string]any{"ack": "received: the run reads it before its next turn"})
			require.Equal(t, http.StatusOK, status, string(raw))
			status, raw = h.call(t, http.MethodPost, ack, h.alice, map[string]any{"ack": "again"})
			assert.Equal(t, http.StatusConflict, status, string(raw))
			cs, err = h.store.Controls(t.Context(), "s-live")
			require.NoError(t, err)
			require.Len(t, cs, 2)
			assert.Equal(t, ControlAcknowledged, cs[0].State)
			assert.Equal(t, "received: the run reads it before its next turn", cs[0].Note, "the page shows the run's acknowledgement")
			assert.Equal(t, "taken by the run", cs[1].Note)

			// An ended run takes nothing more; a workflow's run is steered
			// from its issue.
			status, raw = h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("s-live", "cancelled", ""))
			require.Equal(t, http.StatusOK, status, string(raw))
			status, body = send("alice", "message", "one more")
			assert.Equal(t, http.StatusConflict, status, body)
			assert.Contains(t, body, "run s-live has ended (cancelled)")
			status, raw = h.call(t, http.MethodPost, "/api/session-runs/s-action/events", h.install, events(0, 1, "active"))
			require.Equal(t, http.StatusOK, status, string(raw))
			v, _ := h.signIn(t, "alice")
			resp, page := v.post(t, "/runs/s-action/control", url.Values{"csrf": {v.csrf}, "action": {"message"}, "text": {"hi"}})
			assert.Equal(t, http.StatusConflict, resp.StatusCode, page)
			assert.True(t, strings.Contains(page, "comment on its issue or pull request"), page)
		})
	}
}

// The run page opens with the last pageEvents events and says how many
// came before.
func TestLiveRunPageShowsTheLastEvents(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	for seq := 0; seq < pageEvents+3; seq += maxEventBatch {
		status, body := h.call(t, http.MethodPost, "/api/session-runs/s-big/events", h.alice, events(seq, min(maxEventBatch, pageEvents+3-seq), ""))
		require.Equal(t, http.StatusOK, status, string(body))
	}
	v, _ := h.signIn(t, "bob")
	resp, page := v.get(t, "/runs/s-big")
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	assert.Contains(t, page, "Not shown: the run's first 3 events")
	assert.Equal(t, pageEvents, strings.Count(page, `class="ev `))
	assert.Contains(t, page, `data-last="1002"`, "the page follows from its last event")
	assert.NotContains(t, page, `data-seq="2"`)
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'nonce-", "the live page's one script may run")
}

// FuzzLiveProgress: whatever a run's events say, what the console keeps
// of them never goes back (turns, tokens), never has a negative cost, and
// keeps the goal to one line.
func FuzzLiveProgress(f *testing.F) {
	f.Add(`{"kind":"state","status":"starting","goal":"Fix it","cost_usd":0}`, `{"kind":"turn","turn":2,"tokens":900,"cost_usd":0.01}`)
	f.Add(`{"kind":"turn","turn":-4,"tokens":-1,"cost_usd":-3}`, `{"kind":"state","goal":"a\nb"}`)
	f.Add(`{"kind":"output","text":"x"}`, `not json`)
	f.Fuzz(func(t *testing.T, a, b string) {
		cost := 0.5
		run := &Run{Goal: "kept", Turns: 3, Tokens: 100, CostUSD: &cost}
		p := liveProgress(run, []json.RawMessage{json.RawMessage(a), json.RawMessage(b)})
		if p.Turns < run.Turns || p.Tokens < run.Tokens {
			t.Fatalf("went back: %+v from %+v", p, run)
		}
		if p.CostUSD == nil || *p.CostUSD < 0 {
			t.Fatalf("cost %v", p.CostUSD)
		}
		if p.Goal != "kept" {
			t.Fatalf("the first goal is kept, got %q", p.Goal)
		}
	})
}

// TestEventLineOfSteps: the run's step events read as watch prints them,
// a line each, and the steps a turn's line already tells (a request to
// the model, a tool call) are not shown: they would crowd out the turns.
func TestEventLineOfSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		event string
		want  string
	}{
		{"request", `{"time":"2026-12-01T09:00:01Z","kind":"request","turn":1,"model":"coder","input_tokens":900,"duration_ms":40}`, ""},
		{"tool", `{"time":"2026-12-01T09:00:01Z","kind":"tool","turn":1,"tool":"run_shell","target":"go vet ./...","duration_ms":40}`, ""},
		{"command", `{"time":"2026-12-01T09:00:02Z","kind":"command","target":"go vet ./...","exit":1,"backend":"bwrap","duration_ms":900}`, "09:00:02  command go vet ./...: exit 1 (bwrap)"},
		{"command at a limit", `{"time":"2026-12-01T09:00:02Z","kind":"command","target":"go test ./...","backend":"docker","limit":"memory"}`, "09:00:02  command go test ./...: no exit status (docker), stopped at its memory limit"},
		{"check run", `{"time":"2026-12-01T09:00:02Z","kind":"command","target":"go vet ./...","exit":0,"backend":"host","text":"on the result"}`, "09:00:02  command go vet ./...: exit 0 (host): on the result"},
		{"deps", `{"time":"2026-12-01T09:00:03Z","kind":"deps","verdict":"failed","text":"registry.npmjs.org unreachable"}`, "09:00:03  dependencies: failed: registry.npmjs.org unreachable"},
		{"landed", `{"time":"2026-12-01T09:00:04Z","kind":"land","target":"core-session/s1 https://github.com/acme/app/pull/7"}`, "09:00:04  landed: core-session/s1 https://github.com/acme/app/pull/7"},
		{"not landed", `{"time":"2026-12-01T09:00:04Z","kind":"land","text":"the branch moved"}`, "09:00:04  not landed: the branch moved"},
		{"a kind to come", `{"time":"2026-12-01T09:00:05Z","kind":"span","text":"x"}`, "09:00:05  span x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, eventLine(json.RawMessage(tt.event)))
		})
	}
}

// TestLiveRunPageSkipsStepsTheTurnsTell: a run's page shows its turns and
// commands, not a line for each request and tool call.
func TestLiveRunPageSkipsStepsTheTurnsTell(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	batch := map[string]any{"repo": "acme/app", "seq": 0, "events": []json.RawMessage{
		json.RawMessage(`{"time":"2026-12-01T09:00:01Z","kind":"request","turn":1,"model":"coder"}`),
		json.RawMessage(`{"time":"2026-12-01T09:00:02Z","kind":"command","turn":1,"target":"go vet ./...","exit":0,"backend":"bwrap"}`),
		json.RawMessage(`{"time":"2026-12-01T09:00:02Z","kind":"tool","turn":1,"tool":"run_shell","target":"go vet ./..."}`),
		json.RawMessage(`{"time":"2026-12-01T09:00:02Z","kind":"turn","turn":1,"tool":"run_shell","target":"go vet ./..."}`),
	}}
	status, body := h.call(t, http.MethodPost, "/api/session-runs/s-steps/events", h.alice, batch)
	require.Equal(t, http.StatusOK, status, string(body))
	v, _ := h.signIn(t, "bob")
	resp, page := v.get(t, "/runs/s-steps")
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	assert.Equal(t, 2, strings.Count(page, `class="ev `), "the command and the turn")
	assert.Contains(t, page, "09:00:02  command go vet ./...: exit 0 (bwrap)")
	assert.Contains(t, page, `data-last="3"`, "the page follows from the last event, shown or not")
}

// FuzzEventLineOfSteps: whatever a step event a run sends holds, its
// line on the run's page is one line.
func FuzzEventLineOfSteps(f *testing.F) {
	f.Add(`{"kind":"command","target":"go vet ./...","exit":1,"backend":"bwrap","text":"on the result"}`)
	f.Add(`{"kind":"deps","verdict":"failed","text":"a\nb"}`)
	f.Add(`{"kind":"land","target":"x\ny"}`)
	f.Add(`{"kind":"land","text":"\u2028why"}`)
	f.Add(`{"kind":"command","exit":"no"}`)
	f.Fuzz(func(t *testing.T, event string) {
		switch eventKind(json.RawMessage(event)) {
		case "command", "deps", "land", "request", "tool":
			if line := eventLine(json.RawMessage(event)); strings.ContainsAny(line, "\n\r") {
				t.Fatalf("%q is more than a line: %q", event, line)
			}
		}
	})
}
