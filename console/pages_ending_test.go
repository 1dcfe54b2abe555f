package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exhaustedFields is a run whose budget ran out: its error ends with the
// command that resumes it, which the page replaces with the top-up.
const exhaustedFields = `,"goal":"Port the parser","error":"the budget of $0.5000 (--budget-usd) would be passed: $0.4800 spent, and the next request may cost up to $0.0400 more; core session resume s-exhausted --budget-usd N continues with $N more"`

// localReport is a run that landed in a local repository: a branch and a
// commit, and nothing on GitHub.
const localReport = `{"id":"s-local","repo":"acme/app","status":"completed","turns":2,"usage":{"total_tokens":300},` +
	`"started_at":"2026-12-01T08:00:00Z","ended_at":"2026-12-01T08:01:00Z","goal":"Tidy the docs",` +
	`"branch":"core/s-local","commit":"89abcdef0123456789abcdef0123456789abcdef","landed":true}`

// sent is a report and the token it is sent with.
type sent struct{ token, body string }

// reportAll sends each report, as a new run.
func (h *harness) reportAll(t *testing.T, reports []sent) {
	t.Helper()
	for _, r := range reports {
		status, body := h.call(t, http.MethodPost, "/api/session-runs", r.token, r.body)
		require.Equal(t, http.StatusCreated, status, string(body))
	}
}

// TestRunPagesShowEachEnding: each ending has its own words and badge;
// only a failed run is in the red box, an exhausted budget is amber with
// the way to go on instead of a command, and a branch that landed only
// locally is named, not linked.
func TestRunPagesShowEachEnding(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	h.reportAll(t, []sent{
		{h.alice, report("s-exhausted", "budget_exhausted", exhaustedFields+`,"run_url":"https://console.example/runs/s-exhausted"`)},
		{h.install, report("s-action-exhausted", "budget_exhausted", exhaustedFields+`,"run_url":"https://github.example/acme/app/actions/runs/777"`)},
		{h.alice, report("s-partial", "partial", `,"error":"the run hit its 12 turns"`)},
		{h.alice, report("s-failed", "failed", failedFields)},
		{h.alice, localReport},
	})
	b, _ := h.signIn(t, "bob")
	_, runs := b.get(t, "/runs")
	assert.Contains(t, row(t, runs, "s-exhausted"), `<span class="badge warn end-exhausted">budget exhausted</span>`)
	assert.Contains(t, row(t, runs, "s-partial"), `<div class="why warn"`, "a partial run's reason is not red")
	assert.Contains(t, row(t, runs, "s-failed"), `<div class="why bad"`)

	_, page := b.get(t, "/runs/s-exhausted")
	assert.Contains(t, page, `<div class="note exhausted" id="exhausted"><b>budget exhausted</b>: the budget of $0.5000 (--budget-usd) would be passed: $0.4800 spent, and the next request may cost up to $0.0400 more.`)
	assert.Contains(t, page, `<form method="post" action="/runs/s-exhausted/topup" id="topup">`, "a run of a person's machine is topped up from its page")
	box := page[strings.Index(page, `id="exhausted"`):]
	assert.NotContains(t, box[:strings.Index(box, "</div>")], "core session resume", "no command to copy")
	assert.NotContains(t, page, "workflow run", "a serve run's page is the console's, not a workflow's")
	assert.NotContains(t, page, `class="err"`, "an exhausted budget is not a failure")

	_, page = b.get(t, "/runs/s-action-exhausted")
	assert.Contains(t, page, `id="rerun">To go on, run it again with a larger budget: raise <code>budget_usd</code>`)
	assert.NotContains(t, page, `id="topup"`, "a workflow's run is not resumed on a machine")
	assert.Contains(t, page, `<a id="workflow-link" href="https://github.example/acme/app/actions/runs/777">The workflow run</a>`)
	assert.Contains(t, page, `workflow run <a href="https://github.example/acme/app/actions/runs/777">#777</a>`)

	_, page = b.get(t, "/runs/s-partial")
	assert.Contains(t, page, `<div class="note warn" id="failure"><b>partial</b>: the run hit its 12 turns</div>`)
	_, page = b.get(t, "/runs/s-failed")
	assert.Contains(t, page, `<div class="err" id="failure"><b>infrastructure</b>`)

	_, page = b.get(t, "/runs/s-local")
	assert.Contains(t, page, `branch <code>core/s-local</code> <span class="meta">in the local repository the run landed in; not pushed</span>`)
	assert.Contains(t, page, `commit <code>89abcdef0123</code>`)
	assert.NotContains(t, page, "/tree/", "no link to a branch GitHub does not have")
	assert.NotContains(t, page, "/commit/")
	assert.Contains(t, page, `<dd id="started"><time datetime="2026-12-01T08:00:00Z">08:00:00 UTC</time>`, "a clock time")
	assert.Contains(t, page, `<dd id="ended"><time datetime="2026-12-01T08:01:00Z">08:01:00 UTC</time>`)
}

// TestTopUp: the starter of a run whose budget ran out queues, from its
// page, an instruction that resumes it with more to spend; their serve
// claims it with the session and the top-up. Anyone else, a bad amount,
// a workflow's run or one that did not run out are refused and queue
// nothing.
func TestTopUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	h.reportAll(t, []sent{
		{h.alice, report("s-exhausted", "budget_exhausted", exhaustedFields+`,"run_url":"https://console.example/runs/s-exhausted"`)},
		{h.install, report("s-action-exhausted", "budget_exhausted", exhaustedFields)},
		{h.alice, report("s-done", "completed", "")},
	})
	alice, _ := h.signIn(t, "alice")
	bob, _ := h.signIn(t, "bob")
	for _, tt := range []struct {
		name, run, usd string
		who            *visitor
		status         int
		says           string
	}{
		{name: "not the starter", run: "s-exhausted", usd: "2", who: bob, status: http.StatusForbidden, says: "only alice, who started run s-exhausted, may top it up"},
		{name: "no amount", run: "s-exhausted", usd: "", who: alice, status: http.StatusBadRequest, says: "an amount of dollars above 0"},
		{name: "a negative amount", run: "s-exhausted", usd: "-1", who: alice, status: http.StatusBadRequest, says: "an amount of dollars above 0"},
		{name: "too much", run: "s-exhausted", usd: "5000", who: alice, status: http.StatusBadRequest, says: "limits.budget_usd must be an amount of dollars from 0 to 1000"},
		{name: "a workflow's run", run: "s-action-exhausted", usd: "2", who: alice, status: http.StatusConflict, says: "ran in a workflow, not on a person's machine: ask again (/core fix) with a larger budget_usd"},
		{name: "a run that completed", run: "s-done", usd: "2", who: alice, status: http.StatusConflict, says: "ended completed, not with its budget exhausted"},
		{name: "no such run", run: "s-nope", usd: "2", who: alice, status: http.StatusNotFound, says: "there is no run s-nope here"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, page := tt.who.post(t, "/runs/"+tt.run+"/topup", url.Values{"csrf": {tt.who.csrf}, "budget_usd": {tt.usd}})
			assert.Equal(t, tt.status, resp.StatusCode, page)
			assert.Contains(t, page, tt.says)
		})
	}
	for _, login := range []string{"alice", "bob"} {
		cmds, err := h.store.Commands(t.Context(), login, 10)
		require.NoError(t, err)
		assert.Empty(t, cmds, "a refused top-up queues nothing for %s", login)
	}

	resp, page := alice.post(t, "/runs/s-exhausted/topup", url.Values{"csrf": {alice.csrf}, "budget_usd": {"$2.5"}, "instruction": {""}})
	require.Equal(t, http.StatusCreated, resp.StatusCode, page)
	_, page = alice.get(t, "/queue")
	assert.Contains(t, page, `resumes <a href="/runs/s-exhausted">s-exhausted</a>, topped up by $2.5000`)

	status, body := h.call(t, http.MethodGet, "/api/session-commands?wait=0s", h.alice, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	cmd := command(t, body)
	assert.Equal(t, "s-exhausted", cmd.Resume)
	assert.Equal(t, Limits{BudgetUSD: 2.5}, cmd.Limits)
	assert.Equal(t, topUpInstruction, cmd.Instruction, "an empty box carries on")
	assert.Equal(t, "acme/app", cmd.Repo)

	status, body = h.call(t, http.MethodPost, "/api/session-commands/"+strconv.FormatInt(cmd.ID, 10)+"/result", h.alice,
		Result{Claim: cmd.Claim, Status: "failed", Error: "the session ended budget_exhausted", SessionID: "s-exhausted"})
	require.Equal(t, http.StatusOK, status, string(body))
	_, page = alice.get(t, "/queue")
	assert.Contains(t, page, `<span class="badge warn end-exhausted">budget exhausted</span>`, "a result shows how its run ended")
}

// TestLiveRunShowsItsProgress: a live run's events carry its goal, its
// spend so far and its cost; the Runs page, the run page and the page's
// feed show them while it runs, not 0 and "no price set".
func TestLiveRunShowsItsProgress(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	send := func(seq int, evs ...string) {
		t.Helper()
		raw := "[" + strings.Join(evs, ",") + "]"
		status, body := h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice,
			`{"repo":"acme/app","seq":`+strconv.Itoa(seq)+`,"events":`+raw+`}`)
		require.Equal(t, http.StatusOK, status, string(body))
	}
	send(0, `{"time":"2026-12-01T09:00:00Z","kind":"state","status":"starting","goal":"Fix the flaky login test","cost_usd":0}`,
		`{"time":"2026-12-01T09:00:01Z","kind":"state","status":"active","goal":"Fix the flaky login test","cost_usd":0}`,
		`{"time":"2026-12-01T09:00:05Z","kind":"turn","turn":1,"tool":"read_file","target":"a.go","tokens":900,"cost_usd":0.0123}`)
	b, _ := h.signIn(t, "bob")
	_, runs := b.get(t, "/runs")
	r := row(t, runs, "s-live")
	assert.Contains(t, r, `<a class="goal" href="/runs/s-live">Fix the flaky login test</a>`, "the goal from the first event")
	assert.Contains(t, r, `<span class="badge busy end-live">working</span>`)
	assert.Contains(t, r, `<td class="num cost">$0.0123</td>`)
	assert.Contains(t, r, `<td class="num">1</td><td class="num">900</td>`)

	send(3, `{"time":"2026-12-01T09:00:09Z","kind":"output","text":"ok\n"}`,
		`{"time":"2026-12-01T09:00:12Z","kind":"turn","turn":2,"tool":"edit_file","target":"a.go","tokens":2100,"cost_usd":0.0305}`)
	_, page := b.get(t, "/runs/s-live")
	for _, want := range []string{`<h1 id="goal">Fix the flaky login test</h1>`, `<dd id="turns">2</dd>`, `<dd id="tokens">2100</dd>`,
		`<dd id="cost">$0.0305</dd>`, `<span class="badge busy end-live">working</span>`, `09:00:12  turn 2  edit_file a.go`} {
		assert.Contains(t, page, want)
	}
	status, body := h.call(t, http.MethodGet, "/api/session-runs/s-live/events?after=4", h.alice, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	assert.Contains(t, string(body), `"progress":{"goal":"Fix the flaky login test","turns":2,"tokens":2100,"cost":"$0.0305","ending":{"key":"live","word":"working","tone":"busy"}}`)

	send(5, `{"time":"2026-12-01T09:00:20Z","kind":"state","status":"idle"}`)
	_, page = b.get(t, "/runs/s-live")
	assert.Contains(t, page, `<span class="badge busy end-live">idle</span>`)
	assert.Contains(t, page, `<dd id="cost">$0.0305</dd>`, "an event without a cost keeps the last")
	assert.Contains(t, page, "09:00:20  idle")
}

// TestStopAsksFirst: the Stop button of a live run's page leads to a
// confirmation, without script; only there is the stop sent.
func TestStopAsksFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	status, body := h.call(t, http.MethodPost, "/api/session-runs/s-live/events", h.alice, events(0, 2, "active"))
	require.Equal(t, http.StatusOK, status, string(body))
	b, _ := h.signIn(t, "alice")
	_, page := b.get(t, "/runs/s-live")
	assert.Contains(t, page, `<a class="button" id="stop" href="/runs/s-live?confirm=stop#confirm-stop"`)
	assert.NotContains(t, page, `value="stop"`, "no form that stops at one click")

	_, page = b.get(t, "/runs/s-live?confirm=stop")
	assert.Contains(t, page, `<b>Stop this run?</b>`)
	m := regexp.MustCompile(`<input type="hidden" name="action" value="stop"><button id="stop-confirm">`).FindString(page)
	assert.NotEmpty(t, m, "the confirmation holds the stop's form")
	resp, _ := b.post(t, "/runs/s-live/control", url.Values{"csrf": {b.csrf}, "action": {"stop"}})
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	cs, err := h.store.Controls(t.Context(), "s-live")
	require.NoError(t, err)
	require.Len(t, cs, 1)
	assert.Equal(t, ControlStop, cs[0].Kind)
}

// TestResumedRunIsLiveAgain: a session resumed after it reported (a
// top-up) is live on its page again, counted afresh from its new events;
// a batch of old events sent again after the report changes nothing.
func TestResumedRunIsLiveAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	first := []json.RawMessage{
		json.RawMessage(`{"time":"2026-12-01T08:00:00Z","kind":"state","status":"starting","goal":"Port the parser","cost_usd":0}`),
		json.RawMessage(`{"time":"2026-12-01T08:00:05Z","kind":"turn","turn":1,"tool":"read_file","target":"a.go","tokens":5000,"cost_usd":0.48}`),
	}
	send := func(seq int, evs []json.RawMessage) {
		t.Helper()
		status, body := h.call(t, http.MethodPost, "/api/session-runs/s-exhausted/events", h.alice, map[string]any{"repo": "acme/app", "seq": seq, "events": evs})
		require.Equal(t, http.StatusOK, status, string(body))
	}
	send(0, first)
	status, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("s-exhausted", "budget_exhausted", exhaustedFields))
	require.Equal(t, http.StatusOK, status, string(body))

	send(0, first)
	run, err := h.store.GetRun(t.Context(), "s-exhausted")
	require.NoError(t, err)
	assert.Equal(t, "budget_exhausted", run.Status, "old events sent again reopen nothing")

	send(0, append(first,
		json.RawMessage(`{"time":"2026-12-01T09:00:00Z","kind":"state","status":"starting","goal":"Port the parser","cost_usd":0}`),
		json.RawMessage(`{"time":"2026-12-01T09:00:04Z","kind":"turn","turn":2,"tool":"edit_file","target":"a.go","tokens":700,"cost_usd":0.05}`),
		json.RawMessage(`{"time":"2026-12-01T09:00:05Z","kind":"state","status":"active","goal":"Port the parser","cost_usd":0.05}`)))
	assert.Equal(t, "the run was resumed: live again until its next report", h.lastAudit(t).Reason)
	b, _ := h.signIn(t, "alice")
	_, page := b.get(t, "/runs/s-exhausted")
	for _, want := range []string{`<span class="badge busy end-live">working</span>`, `<dd id="tokens">700</dd>`, `<dd id="cost">$0.0500</dd>`,
		`id="message-form"`, `<h1 id="goal">Port the parser</h1>`} {
		assert.Contains(t, page, want)
	}
	assert.NotContains(t, page, `id="exhausted"`, "the last run's ending is not this one's")
}
