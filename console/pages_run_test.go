package console

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The reports of TestRunsPageSaysWhatEachRunWas and the run page: what a
// session's report.json holds (session.Report), field by field.
const (
	goalFields = `,"goal":"Fix the flaky login test","cost_usd":0.0421,"summary":"Made the login test wait for the server.\nIt raced before."` + heldContract
	// summaryFields has no goal: the summary's first line stands in.
	summaryFields = `,"summary":"Renamed the helper everywhere\nand fixed its callers"`
	failedFields  = `,"goal":"Upgrade the parser","failure_kind":"infrastructure","error":"the model endpoint answered 503 six times in a row (retry 6/6)"`
	// landedFields is a landed run with its turns, diff stat and links.
	landedFields = `,"goal":"Fix the flaky login test","summary":"Made the login test wait for the server.","cost_usd":0.37,` +
		`"issue":7,"pull_request":4,"branch":"core-session/s-landed","commit":"0123456789abcdef0123456789abcdef01234567","landed":true,` +
		`"diff_stat":{"files":3,"insertions":40,"deletions":12},` +
		`"steps":[{"turn":1,"tool":"read_file","target":"auth/login_test.go","duration_ns":1500000000,"tokens":900},` +
		`{"turn":2,"tool":"","duration_ns":500000000,"tokens":300,"malformed":true},` +
		`{"turn":3,"tool":"edit_file","target":"auth/login_test.go","duration_ns":3000000000,"tokens":1100},` +
		`{"turn":4,"tool":"done","duration_ns":200000000,"tokens":120}]` + heldContract
)

// dispatched is a run the bot dispatched to Actions, still running.
func dispatched() *Run {
	return &Run{SessionID: "r-bot-9", Repo: "acme/app", Trigger: TriggerBot, Actor: "bob", Status: "running",
		Goal: "make the build green", Issue: 12, WorkflowURL: "https://github.example/acme/app/actions/runs/555",
		StartedAt: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)}
}

// row returns the Runs page's row of run id.
func row(t *testing.T, page, id string) string {
	t.Helper()
	start := strings.Index(page, `<tr class="run" data-id="`+id+`">`)
	require.GreaterOrEqual(t, start, 0, "the Runs page has a row for %s", id)
	end := strings.Index(page[start:], "</tr>")
	require.Greater(t, end, 0)
	return page[start : start+end]
}

func TestRunsPageSaysWhatEachRunWas(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t), func(c *Config) { c.BotRuns = botRuns{dispatched()} })
	for id, fields := range map[string]string{"s-goal": goalFields, "s-summary": summaryFields, "s-failed": failedFields} {
		status := map[string]string{"s-goal": "done", "s-summary": "done", "s-failed": "failed"}[id]
		code, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, report(id, status, fields))
		require.Equal(t, http.StatusCreated, code, string(body))
	}
	b, _ := h.signIn(t, "bob")
	resp, page := b.get(t, "/runs")
	require.Equal(t, http.StatusOK, resp.StatusCode)

	tests := []struct {
		name, id string
		want     []string
		not      []string
	}{
		{name: "the goal, start, duration, cost and badges", id: "s-goal", want: []string{
			`<a class="goal" href="/runs/s-goal">Fix the flaky login test</a>`,
			`<span class="badge ok end-held">completed, contract held</span>`,
			`<td class="contract"><span class="badge ok">held</span></td>`,
			`<time datetime="2026-12-01T08:00:00Z">2026-12-01 08:00 UTC</time>`, "took 2m0s",
			`<td class="num cost">$0.0421</td>`,
			`pull request <a href="https://github.example/acme/app/pull/4">#4</a>`,
		}},
		{name: "no goal: the summary's first line", id: "s-summary",
			want: []string{`href="/runs/s-summary">Renamed the helper everywhere</a>`, `<td class="num cost"><span class="none">no price set</span></td>`},
			not:  []string{"$0", "and fixed its callers"}},
		{name: "a failure says why", id: "s-failed", want: []string{
			`<span class="badge bad end-failed">failed</span>`,
			`<div class="why bad" title="the model endpoint answered 503 six times in a row (retry 6/6)">infrastructure: the model endpoint answered 503 six times in a row (retry 6/6)</div>`,
		}, not: []string{"$0"}},
		{name: "a bot run links its issue and workflow run", id: "r-bot-9", want: []string{
			`href="/runs/r-bot-9">make the build green</a>`,
			`<span class="badge busy end-live">working</span>`,
			`issue <a href="` + h.g.URL + `/acme/app/issues/12">#12</a>`,
			`workflow run <a href="https://github.example/acme/app/actions/runs/555">#555</a>`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := row(t, page, tt.id)
			for _, w := range tt.want {
				assert.Contains(t, r, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, r, n)
			}
		})
	}

	status, body := h.call(t, http.MethodGet, "/api/session-runs", h.alice, nil)
	require.Equal(t, http.StatusOK, status)
	var list struct{ Runs []*Run }
	require.NoError(t, json.Unmarshal(body, &list))
	goals := map[string]string{}
	for _, r := range list.Runs {
		goals[r.SessionID] = r.Goal
	}
	assert.Equal(t, "Upgrade the parser", goals["s-failed"], "the API lists the goal too")
}

func TestRunPageShowsTheRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	sent := report("s-landed", "done", landedFields)
	code, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, sent)
	require.Equal(t, http.StatusCreated, code, string(body))
	b, _ := h.signIn(t, "bob")
	resp, page := b.get(t, "/runs/s-landed")
	require.Equal(t, http.StatusOK, resp.StatusCode)

	for _, want := range []string{
		`<h1 id="goal">Fix the flaky login test</h1>`,
		`<p id="summary" class="summary">Made the login test wait for the server.</p>`,
		`<dd id="cost">$0.3700</dd>`,
		`<dd id="diffstat">3 files changed, &#43;40 −12</dd>`,
		`pull request <a href="https://github.example/acme/app/pull/4">#4</a>`,
		`issue <a href="` + h.g.URL + `/acme/app/issues/7">#7</a>`,
		`branch <a href="` + h.g.URL + `/acme/app/tree/core-session/s-landed">core-session/s-landed</a>`,
		`commit <a href="` + h.g.URL + `/acme/app/commit/0123456789abcdef0123456789abcdef01234567">0123456789ab</a>`,
		`<td><code>go test ./...</code></td>`,
		`<details id="raw">`,
	} {
		assert.Contains(t, page, want)
	}
	steps := regexp.MustCompile(`(?s)<tr class="step[^"]*">.*?</tr>`).FindAllString(page, -1)
	require.Len(t, steps, 4, "one timeline row a turn")
	assert.Contains(t, steps[0], "<code>read_file</code>")
	assert.Contains(t, steps[0], `<td class="meta at">08:00:00 UTC</td>`, "the clock time it began")
	assert.Contains(t, steps[1], `class="step malformed"`)
	assert.Contains(t, steps[1], "no valid action")
	assert.Contains(t, steps[2], `style="width: 100%"`, "the longest turn fills its bar")
	assert.Contains(t, steps[2], `<td class="meta at">08:00:02 UTC</td>`, "it started when the two before it ended")
	assert.NotContains(t, page, "<details id=\"raw\" open", "the JSON is one click away, not shown")

	resp, raw := b.get(t, "/runs/s-landed/report.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.JSONEq(t, sent, raw, "the report as it was sent")
	resp, _ = b.get(t, "/runs/nope/report.json")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestErrorPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	b, _ := h.signIn(t, "bob")
	signedIn := func(t *testing.T, page string) {
		t.Helper()
		assert.Contains(t, page, `<span class="who">bob <form method="post" action="/logout"`, "the header of the signed-in user")
		assert.NotContains(t, page, "Sign in with GitHub")
	}

	t.Run("a refused form", func(t *testing.T) {
		resp, page := b.post(t, "/api/session-queue", url.Values{"csrf": {b.csrf}, "repo": {"acme/app"}, "instruction": {"x"}, "max_turns": {"many"}})
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		assert.Contains(t, page, `max turns must be a number, got &#34;many&#34;`)
		signedIn(t, page)
	})
	t.Run("a form without its CSRF token, from a browser", func(t *testing.T) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, h.srv.URL+"/api/session-queue",
			strings.NewReader(url.Values{"repo": {"acme/app"}, "instruction": {"x"}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
		resp, err := b.client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		page, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode)
		assert.Contains(t, resp.Header.Get("Content-Type"), "text/html", "a page, not JSON")
		assert.Contains(t, string(page), "CSRF token is missing or wrong")
		signedIn(t, string(page))
	})
	t.Run("no such run", func(t *testing.T) {
		resp, page := b.get(t, "/runs/nope")
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		assert.Contains(t, page, "There is no run &#34;nope&#34; here.")
		signedIn(t, page)
	})
	t.Run("the store fails", func(t *testing.T) {
		_, err := h.store.db.ExecContext(t.Context(), `DROP TABLE console_runs`)
		require.NoError(t, err)
		for _, path := range []string{"/runs", "/runs/some-run"} {
			resp, page := b.get(t, path)
			assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, path)
			assert.Contains(t, page, "could not be read just now; reload the page in a moment.", path)
			assert.NotContains(t, page, "console_runs", "no Go error on the page")
			signedIn(t, page)
		}
		assert.Contains(t, h.log.String(), "no such table: console_runs", "the error is in the log")
	})
}
