package console

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/browser"
)

func TestBrowser(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	ctx := browser.New(t, 90*time.Second)
	status, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("cli-run-1", "succeeded", heldContract))
	require.Equal(t, http.StatusCreated, status, string(body))
	h.apps.SignIn("alice")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/login"),
		chromedp.WaitVisible(chromedp.ID("runs")),
	), "sign in through the OAuth flow")
	runs, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("runs")))
	require.NoError(t, err)
	assert.Contains(t, runs, "cli-run-1")
	assert.Contains(t, runs, "alice")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`a[href="/runs/cli-run-1"]`)),
		chromedp.WaitVisible(chromedp.ID("contract")),
	), "see a run and its contract")
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("verdict")))
	require.NoError(t, err)
	assert.Equal(t, "held", verdict)

	state := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`tr.command .state`)))
		require.NoError(t, err)
		return s
	}
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/queue"),
		chromedp.WaitVisible(chromedp.ID("enqueue")),
		chromedp.SendKeys(chromedp.CSS(`#enqueue input[name="repo"]`), "acme/app"),
		chromedp.SendKeys(chromedp.CSS(`#enqueue textarea[name="instruction"]`), "fix it from the browser"),
		chromedp.Submit(chromedp.ID("enqueue")),
		chromedp.WaitVisible(chromedp.CSS(`tr.command`)),
	), "queue an instruction")
	assert.Equal(t, "queued", state())

	status, body = h.call(t, http.MethodGet, "/api/session-commands?wait=5s", h.alice, nil)
	require.Equal(t, http.StatusOK, status, "alice's machine claims it")
	cmd := command(t, body)
	assert.Equal(t, "fix it from the browser", cmd.Instruction)
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
	assert.Equal(t, "claimed", state())
	status, _ = h.call(t, http.MethodPost, "/api/session-commands/"+strconv.FormatInt(cmd.ID, 10)+"/result", h.alice,
		Result{Claim: cmd.Claim, Status: "succeeded", Summary: "fixed the thing", PRURL: "https://github.example/acme/app/pull/9", SessionID: "cli-run-1"})
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload()), "see it finished")
	assert.Equal(t, "done", state())
	row, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`tr.command`)))
	require.NoError(t, err)
	assert.Contains(t, row, "fixed the thing")
	links, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('tr.command a[href="/runs/cli-run-1"]').length`))
	require.NoError(t, err)
	assert.Equal(t, 1, links, "the result links its session's run")

	const appRow = `//tr[td[1][text()="acme/app"]]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/forger"),
		chromedp.WaitVisible(chromedp.ID("forger")),
		chromedp.Click(chromedp.Search(appRow+`//button`)),
		chromedp.WaitVisible(chromedp.Search(appRow+`/td[@class="armed"][text()="armed"]`)),
	), "arm the forger")
	assert.Equal(t, "true", h.g.Variables(org, "app")["CORE_FORGE_ENABLED"])

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.srv.URL+"/queue"),
		chromedp.WaitVisible(chromedp.ID("enqueue")),
	))
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector('#enqueue input[name="csrf"]').remove(), true)`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#enqueue input[name="repo"]`), "acme/app"),
		chromedp.SendKeys(chromedp.CSS(`#enqueue textarea[name="instruction"]`), "forged"),
		chromedp.Submit(chromedp.ID("enqueue")),
		chromedp.WaitVisible(chromedp.Search(`//body[contains(., "CSRF")]`)),
	), "a form post without its CSRF token")
	refused, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`body`)))
	require.NoError(t, err)
	assert.Contains(t, refused, "CSRF token is missing or wrong")
	cmds, err := h.store.Commands(t.Context(), "alice", 0)
	require.NoError(t, err)
	assert.Len(t, cmds, 1, "the CSRF-less post queued nothing")
}
