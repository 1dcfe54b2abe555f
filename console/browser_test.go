package console

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium finds a Chromium to drive; the browser tests skip without one
// unless CORE_REQUIRE_CHROMIUM=1 (CI installs Debian's chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CORE_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("CORE_REQUIRE_CHROMIUM=1 but there is no chromium: apt-get install chromium")
	}
	t.Skip("no chromium: apt-get install chromium (CI does)")
	return ""
}

func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true), // containers give /dev/shm 64 MB
		chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx
}

func TestBrowser(t *testing.T) {
	t.Parallel()
	h := newHarness(t, sqliteStore(t))
	ctx := newBrowser(t)
	status, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, report("cli-run-1", "succeeded",
		`,"contract":{"verdict":"held","baseline_gates_nothing":false,"checks":[{"command":["go","test","./..."],"source":"user","baseline":{"exit":1,"passed":false,"seconds":2.5,"sandboxed":true},"result":{"exit":0,"passed":true,"seconds":2.1,"sandboxed":true},"verdict":"fixed"}],"timeout_seconds":300}`))
	require.Equal(t, http.StatusCreated, status, string(body))
	h.g.SignIn("alice")

	var runs string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.srv.URL+"/login"),
		chromedp.WaitVisible(`#runs`, chromedp.ByID),
		chromedp.Text(`#runs`, &runs, chromedp.ByID),
	), "sign in through the OAuth flow")
	assert.Contains(t, runs, "cli-run-1")
	assert.Contains(t, runs, "alice")

	var verdict string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`a[href="/runs/cli-run-1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#contract`, chromedp.ByID),
		chromedp.Text(`#verdict`, &verdict, chromedp.ByID),
	), "see a run and its contract")
	assert.Equal(t, "held", verdict)

	var state string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.srv.URL+"/queue"),
		chromedp.WaitVisible(`#enqueue`, chromedp.ByID),
		chromedp.SendKeys(`#enqueue input[name="repo"]`, "acme/app", chromedp.ByQuery),
		chromedp.SendKeys(`#enqueue textarea[name="instruction"]`, "fix it from the browser", chromedp.ByQuery),
		chromedp.Submit(`#enqueue`, chromedp.ByID),
		chromedp.WaitVisible(`tr.command`, chromedp.ByQuery),
		chromedp.Text(`tr.command .state`, &state, chromedp.ByQuery),
	), "queue an instruction")
	assert.Equal(t, "queued", state)

	status, body = h.call(t, http.MethodGet, "/api/session-commands?wait=5s", h.alice, nil)
	require.Equal(t, http.StatusOK, status, "alice's machine claims it")
	cmd := command(t, body)
	assert.Equal(t, "fix it from the browser", cmd.Instruction)
	require.NoError(t, chromedp.Run(ctx, chromedp.Reload(), chromedp.Text(`tr.command .state`, &state, chromedp.ByQuery)))
	assert.Equal(t, "claimed", state)
	status, _ = h.call(t, http.MethodPost, "/api/session-commands/"+strconv.FormatInt(cmd.ID, 10)+"/result", h.alice,
		Result{Claim: cmd.Claim, Status: "succeeded", Summary: "fixed the thing", PRURL: "https://github.example/acme/app/pull/9", SessionID: "cli-run-1"})
	require.Equal(t, http.StatusOK, status)
	var row string
	require.NoError(t, chromedp.Run(ctx, chromedp.Reload(),
		chromedp.Text(`tr.command .state`, &state, chromedp.ByQuery),
		chromedp.Text(`tr.command`, &row, chromedp.ByQuery)), "see it finished")
	assert.Equal(t, "done", state)
	assert.Contains(t, row, "fixed the thing")
	var runLinks int
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('tr.command a[href="/runs/cli-run-1"]').length`, &runLinks)))
	assert.Equal(t, 1, runLinks, "the result links its session's run")

	var armed string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.srv.URL+"/forger"),
		chromedp.WaitVisible(`#forger`, chromedp.ByID),
		chromedp.Click(`//tr[td[1][text()="acme/app"]]//button`, chromedp.BySearch),
		chromedp.WaitVisible(`//tr[td[1][text()="acme/app"]]/td[@class="armed"][text()="armed"]`, chromedp.BySearch),
		chromedp.Text(`//tr[td[1][text()="acme/app"]]/td[@class="armed"]`, &armed, chromedp.BySearch),
	), "arm the forger")
	assert.Equal(t, "armed", armed)
	assert.Equal(t, "true", h.g.Variables(org, "app")["CORE_FORGE_ENABLED"])

	var refused string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(h.srv.URL+"/queue"),
		chromedp.WaitVisible(`#enqueue`, chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#enqueue input[name="csrf"]').remove()`, nil),
		chromedp.SendKeys(`#enqueue input[name="repo"]`, "acme/app", chromedp.ByQuery),
		chromedp.SendKeys(`#enqueue textarea[name="instruction"]`, "forged", chromedp.ByQuery),
		chromedp.Submit(`#enqueue`, chromedp.ByID),
		chromedp.WaitVisible(`//body[contains(., "CSRF")]`, chromedp.BySearch),
		chromedp.Text(`body`, &refused, chromedp.ByQuery),
	), "a form post without its CSRF token")
	assert.Contains(t, refused, "CSRF token is missing or wrong")
	cmds, err := h.store.Commands(t.Context(), "alice", 0)
	require.NoError(t, err)
	assert.Len(t, cmds, 1, "the CSRF-less post queued nothing")
}
