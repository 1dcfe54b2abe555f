package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	testbrowser "github.com/coreagent/core/internal/testkit/browser"
	"github.com/coreagent/core/session/browser"
	"github.com/stretchr/testify/require"
)

// browserEnv gives env a real browser that the test closes, and checks
// that none of its processes is left.
func browserEnv(t *testing.T, env *Env, remote bool) {
	t.Helper()
	exe := testbrowser.Exec(t)
	dir := t.TempDir()
	marker := fmt.Sprintf("CORE_BROWSER_TEST=tools%d", time.Now().UnixNano())
	b := browser.New(browser.HostLauncher{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, marker}},
		browser.Config{Exec: exe, DataDir: filepath.Join(dir, "profile"), Files: filepath.Join(dir, "files"), AllowRemote: remote && env.Attended})
	env.Browser, env.BrowserRemote = b, remote
	t.Cleanup(func() {
		require.NoError(t, b.Close())
		require.Empty(t, testbrowser.Survivors(marker), "browser processes left after Close")
	})
}

func greeter(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, "http://remote.test/", http.StatusFound)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Greeter</title><input id="name"><button id="go" onclick="
document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value; console.error('clicked')">Go</button><p id="out"></p>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBrowserToolsUnattended(t *testing.T) {
	srv := greeter(t)
	env := newEnv(t, nil)
	browserEnv(t, env, false)
	run := func(tool string, args Args) string {
		r, err := WithBrowser().Run(t.Context(), env, Call{Tool: tool, Args: args})
		require.NoError(t, err)
		return r.Output
	}
	require.Contains(t, run("browser_navigate", Args{"url": srv.URL + "/"}), `(title "Greeter"), HTTP status 200`)
	require.Contains(t, run("browser_type", Args{"selector": "#name", "text": "Ada"}), "typed 3 characters into #name")
	require.Contains(t, run("browser_click", Args{"selector": "#go"}), "clicked #go")
	require.Contains(t, run("browser_read", Args{"selector": "#out"}), "Hello, Ada")
	require.Contains(t, run("browser_click", Args{"selector": "#nothing"}), `browser_click: no element matches "#nothing"`)
	shot := run("browser_screenshot", nil)
	require.Regexp(t, `saved screenshot-1\.png \(\d+x\d+ pixels, \d+ bytes\) with the session's files: /`, shot)
	require.Eventually(t, func() bool { return strings.Contains(run("browser_console", nil), "error: clicked") }, 20*time.Second, 50*time.Millisecond, "the console shows the click's message")

	out := run("browser_navigate", Args{"url": srv.URL + "/away"})
	require.Contains(t, out, "the page did not load: net::ERR_BLOCKED_BY_CLIENT")
	require.Contains(t, out, "core blocked 1 request(s) that would have left this machine (only localhost, 127.0.0.1 and [::1] may be loaded):\n  document (after a redirect) http://remote.test/")
	require.Contains(t, run("browser_navigate", Args{"url": "https://example.com/"}), "only http://localhost, 127.0.0.1 and [::1] (any port) may be opened")
}

func TestBrowserGate(t *testing.T) {
	tests := []struct {
		name     string
		attended bool
		remote   bool
		answer   string
		tool     string
		args     Args
		want     string
		asked    string
	}{
		{name: "attended, EOF declines", attended: true, answer: "", tool: "browser_navigate", args: Args{"url": "http://localhost:1/"}, want: DeclinedBrowser, asked: "browser_navigate: http://localhost:1/\napprove? [y/N] "},
		{name: "attended, no declines a read", attended: true, answer: "n\n", tool: "browser_read", want: DeclinedBrowser, asked: "browser_read: read the page's text\napprove? [y/N] "},
		{name: "unattended, remote allowed: navigation declined", remote: true, tool: "browser_navigate", args: Args{"url": "http://localhost:1/"}, want: DeclinedRemote},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, nil)
			var asked strings.Builder
			env.Approver = &TerminalApprover{In: strings.NewReader(tc.answer), Out: &asked, Terminal: tc.attended}
			env.Attended = Attended(env.Approver)
			// A browser that cannot start: a declined action never starts it.
			env.Browser = browser.New(browser.HostLauncher{}, browser.Config{Exec: "/nonexistent/chromium", Files: t.TempDir()})
			env.BrowserRemote = tc.remote
			r, err := WithBrowser().Run(t.Context(), env, Call{Tool: tc.tool, Args: tc.args})
			require.NoError(t, err)
			require.Equal(t, tc.want, r.Output)
			require.Equal(t, tc.asked, asked.String())
		})
	}
	t.Run("no browser", func(t *testing.T) {
		env := newEnv(t, nil)
		r, err := WithBrowser().Run(t.Context(), env, Call{Tool: "browser_screenshot"})
		require.NoError(t, err)
		require.Equal(t, "browser_screenshot: this run has no browser (core starts one with --browser)", r.Output)
	})
	t.Run("a browser that cannot start ends the run", func(t *testing.T) {
		env := newEnv(t, nil)
		env.Browser = browser.New(browser.HostLauncher{}, browser.Config{Exec: "/nonexistent/chromium", Files: t.TempDir()})
		_, err := WithBrowser().Run(t.Context(), env, Call{Tool: "browser_read"})
		require.ErrorContains(t, err, "/nonexistent/chromium")
	})
}

func TestWithBrowserOrder(t *testing.T) {
	require.Equal(t, []string{"read_file", "list_dir", "write_file", "edit_file", "search", "git_diff", "run_shell", "file_issue",
		"browser_navigate", "browser_click", "browser_type", "browser_read", "browser_screenshot", "browser_console", "done"}, WithBrowser().Names())
	require.NotContains(t, Default().Names(), "browser_navigate")
}
