package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	testbrowser "github.com/coreagent/core/internal/testkit/browser"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/session/heartbeat"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
)

// withBrowser turns the options' browser on, in the run's box, with a
// marker in its environment; the returned func lists what of it still
// runs.
func withBrowser(t *testing.T, opts *Options) func() []int {
	t.Helper()
	exe := testbrowser.Exec(t)
	opts.Services.Sandbox = boxSandbox(t, t.TempDir())
	// The test tier: the model's background server and its wait run in
	// the box unattended.
	opts.Verification.Verify = lang.TierTest
	marker := fmt.Sprintf("CORE_BROWSER_TEST=session%d", time.Now().UnixNano())
	opts.Browser = BrowserOptions{On: true, Exec: exe, Env: []string{marker}}
	return func() []int { return testbrowser.Survivors(marker) }
}

// observations are the texts the model was sent, one per request, after
// its previous reply: what each action answered.
func observations(srv *llm.ModelServer) []string {
	var out []string
	for _, r := range srv.Requests() {
		last := r.Messages[len(r.Messages)-1]
		out = append(out, last.Content)
	}
	return out
}

// devServer is a small dev server a repository carries: its files, with
// a redirect to another host at /away.
const devServer = `import http.server, sys
class H(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/away":
            self.send_response(302)
            self.send_header("Location", "http://remote.test/")
            self.end_headers()
            return
        return super().do_GET()
    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()
    def log_message(self, *args):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
print("ready", flush=True)
s.serve_forever()
`

// greeterRepo is a repository with a page that has a form, and one that
// fetches from another host.
func greeterRepo(t *testing.T) string {
	return testkit.GitRepo(t, map[string]string{
		"site/server.py": devServer,
		"site/wait.py":   waitScript,
		"site/index.html": `<!doctype html><title>Greeter</title><form onsubmit="return false"><input id="name"><button id="go">Go</button></form><p id="out"></p>
<script>document.getElementById("go").onclick = () => { const n = document.getElementById("name").value;
  document.getElementById("out").textContent = "Hello, " + n + "!"; console.log("greeted " + n); };</script>`,
		"site/fetches.html": `<!doctype html><title>f</title><p id="r">waiting</p><script>
fetch("http://api.remote.test/x").then(() => { r.textContent = "fetched" }).catch(() => { r.textContent = "fetch failed" });</script>`,
	})
}

// siteURL is where the dev server listens: on the run's box's own
// loopback, where no other process of this machine is.
const siteURL = "http://127.0.0.1:8000"

// waitScript waits, boundedly, for the dev server to answer: the model
// runs it in the box after starting the server in the background.
const waitScript = `import sys, time, urllib.request
for i in range(1200):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=5)
        print("up")
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
print("the server did not answer in 120s")
sys.exit(1)
`

// startServer is what the model does first: start the repository's dev
// server in the background in the run's box, and wait until it answers.
func startServer() []llm.Reply {
	return []llm.Reply{
		llm.ContentReply("tool: run_shell\ncommand: cd site && python3 server.py 8000\nbackground: true"),
		llm.ContentReply("tool: run_shell\ncommand: python3 site/wait.py " + siteURL + "/\nbox: true"),
	}
}

// browserRun runs an unattended session with the browser in its box: the
// model first starts the repository's dev server in the background, then
// replies as given. It returns the report, the options, the observations
// of the given replies' actions (obs[i] answers replies[i-1]; obs[0] is
// the instruction) and what of the browser still runs.
func browserRun(t *testing.T, repo string, replies ...llm.Reply) (*Report, Options, []string, func() []int) {
	t.Helper()
	srv := llm.NewModelServer(t, append(startServer(), replies...)...)
	opts := testOptions(t, srv, repo)
	survivors := withBrowser(t, &opts)
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	obs := observations(srv)
	require.Len(t, obs, 2+len(replies))
	require.Contains(t, obs[1], "started p1 in the background: cd site && python3 server.py 8000")
	require.Contains(t, obs[2], "up\nexit status 0")
	return rep, opts, obs[2:], survivors
}

func TestBrowserSessionUnattended(t *testing.T) {
	repo := greeterRepo(t)
	rep, opts, obs, survivors := browserRun(t, repo,
		llm.ContentReply("tool: browser_navigate\nurl: "+siteURL+"/"),
		llm.ContentReply("tool: browser_type\nselector: \"#name\"\ntext: Ada"),
		llm.ContentReply("tool: browser_click\nselector: \"#go\""),
		llm.ContentReply("tool: browser_read\nselector: \"#out\""),
		llm.ContentReply("tool: browser_screenshot"),
		llm.ContentReply("tool: browser_console"),
		llm.ContentReply("tool: browser_navigate\nurl: "+siteURL+"/away"),
		llm.ContentReply("tool: browser_navigate\nurl: "+siteURL+"/fetches.html"),
		llm.ContentReply("tool: browser_read\nselector: \"#r\""),
		llm.ContentReply("tool: write_file\npath: checked.txt\ncontent: the greeter greets"),
		llm.ContentReply("tool: done\nsummary: checked the page"),
	)
	assert.Contains(t, obs[1], "Result of browser_navigate:\nloaded "+siteURL+`/ (title "Greeter"), HTTP status 200`)
	assert.Contains(t, obs[2], "typed 3 characters into #name")
	assert.Contains(t, obs[3], "clicked #go; the page is "+siteURL+"/")
	assert.Contains(t, obs[4], "\nHello, Ada!")
	assert.Regexp(t, `saved screenshot-1\.png \(\d+x\d+ pixels, \d+ bytes\) with the session's files: .*/browser/screenshot-1\.png`, obs[5])
	assert.Contains(t, obs[6], "log: greeted Ada")
	assert.Contains(t, obs[7], "browser_navigate: the page did not load: net::ERR_BLOCKED_BY_CLIENT\ncore blocked 1 request(s) that would have left this machine")
	assert.Contains(t, obs[7], "document (after a redirect) http://remote.test/")
	// The page's fetch is blocked while it loads or just after.
	assert.Contains(t, obs[8]+obs[9], "xhr http://api.remote.test/x")

	assert.Equal(t, []string{"browser/screenshot-1.png", "browser/console.log"}, rep.Files)
	png, err := os.ReadFile(filepath.Join(opts.Services.Store.Dir(rep.ID), "browser", "screenshot-1.png"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(png), "\x89PNG"), "the screenshot is a PNG")
	log, err := os.ReadFile(filepath.Join(opts.Services.Store.Dir(rep.ID), "browser", "console.log"))
	require.NoError(t, err)
	assert.Contains(t, string(log), "log: greeted Ada")
	assert.Contains(t, string(log), "core blocked document (after a redirect) http://remote.test/")
	var summary strings.Builder
	rep.WriteSummary(&summary)
	assert.Contains(t, summary.String(), "files (in the session's directory): browser/screenshot-1.png, browser/console.log\n")
	assert.Empty(t, survivors(), "no browser process outlives the run")
}

// TestBrowserGateInSession: the gate as runs meet it. An attended run asks
// for each action and declines on EOF, starting no browser; an unattended
// run with remote pages allowed declines every navigation; --headed is
// refused where no one watches.
func TestBrowserGateInSession(t *testing.T) {
	tests := []struct {
		name     string
		attended bool
		remote   bool
		want     string
	}{
		{name: "attended, EOF", attended: true, want: tools.DeclinedBrowser},
		{name: "unattended, remote allowed", remote: true, want: tools.DeclinedRemote},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
			srv := llm.NewModelServer(t,
				llm.ContentReply("tool: browser_navigate\nurl: http://localhost:9/"),
				llm.ContentReply("tool: done\nsummary: could not look"),
			)
			opts := testOptions(t, srv, repo)
			survivors := withBrowser(t, &opts)
			opts.Browser.AllowRemote = tc.remote
			var asked strings.Builder
			opts.Services.Approver = &tools.TerminalApprover{In: strings.NewReader(""), Out: &asked, Terminal: tc.attended}
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			obs := observations(srv)
			require.Len(t, obs, 2)
			assert.Equal(t, "Result of browser_navigate:\n"+tc.want, obs[1])
			if tc.attended {
				assert.Contains(t, asked.String(), "browser_navigate: http://localhost:9/\napprove? [y/N] ")
			}
			assert.Empty(t, rep.Files, "no browser started, nothing kept")
			assert.Empty(t, survivors())
		})
	}
	// No box, attended or not: refused before a record or a request.
	for _, attended := range []bool{true, false} {
		t.Run(fmt.Sprintf("no box, attended %v", attended), func(t *testing.T) {
			srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: never asked"))
			opts := testOptions(t, srv, testkit.GitRepo(t, map[string]string{"README": "hi\n"})) // the sandbox is off
			// Refused before any browser starts: no Chromium is needed.
			opts.Browser = BrowserOptions{On: true, Exec: "/nonexistent/chromium"}
			var asked strings.Builder
			opts.Services.Approver = &tools.TerminalApprover{In: strings.NewReader("y\ny\n"), Out: &asked, Terminal: attended}
			rep, err := Run(t.Context(), opts)
			var ce *ConfigError
			require.ErrorAs(t, err, &ce, "refused before the session starts")
			assert.Nil(t, rep)
			assert.Equal(t, "browser", ce.Option)
			assert.Contains(t, err.Error(), "the browser runs only inside the run's box, and this run can have none (CORE_SESSION_SANDBOX=off)")
			assert.Empty(t, srv.Requests())
			assert.Empty(t, asked.String())
			recs, err := opts.Services.Store.List()
			require.NoError(t, err)
			assert.Empty(t, recs, "no session made")
		})
	}
	t.Run("headed, unattended", func(t *testing.T) {
		srv := llm.NewModelServer(t)
		opts := testOptions(t, srv, testkit.GitRepo(t, map[string]string{"README": "hi\n"}))
		withBrowser(t, &opts)
		opts.Browser.Headed = true
		_, err := Run(t.Context(), opts)
		var ce *ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "headed", ce.Option)
		assert.Contains(t, err.Error(), "this run has none")
		assert.Empty(t, srv.Requests())
	})
}

// TestBrowserFixesAPage is the "done when": a scripted session
// finds a bug in a page's JavaScript by looking at the page, fixes it,
// checks the page again and lands, with its screenshot among the
// session's files.
func TestBrowserFixesAPage(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{
		"site/server.py": devServer,
		"site/wait.py":   waitScript,
		"site/index.html": `<!doctype html><title>Adder</title><input id="a"> + <input id="b"> <button id="add">=</button> <span id="sum"></span>
<script src="app.js"></script>`,
		"site/app.js": `document.getElementById("add").onclick = () => {
  const a = Number(document.getElementById("a").value), b = Number(document.getElementById("b").value);
  document.getElementById("sum").textContent = String(a - b);
};
`,
	})
	check := []llm.Reply{
		llm.ContentReply("tool: browser_type\nselector: \"#a\"\ntext: \"2\""),
		llm.ContentReply("tool: browser_type\nselector: \"#b\"\ntext: \"3\""),
		llm.ContentReply("tool: browser_click\nselector: \"#add\""),
		llm.ContentReply("tool: browser_read\nselector: \"#sum\""),
	}
	replies := append([]llm.Reply{llm.ContentReply("tool: browser_navigate\nurl: " + siteURL + "/")}, check...)
	replies = append(replies,
		llm.ContentReply("<tool_call>\n<function=edit_file>\n<parameter=path>\nsite/app.js\n</parameter>\n<parameter=old_text>\nString(a - b)\n</parameter>\n<parameter=new_text>\nString(a + b)\n</parameter>\n</function>\n</tool_call>"),
		llm.ContentReply("tool: browser_navigate\nurl: "+siteURL+"/"),
	)
	replies = append(replies, check...)
	replies = append(replies,
		llm.ContentReply("tool: browser_screenshot"),
		llm.ContentReply("tool: done\nsummary: the adder subtracted; it adds now, checked in the browser"),
	)
	rep, opts, obs, survivors := browserRun(t, repo, replies...)
	assert.True(t, strings.HasSuffix(obs[5], "\n-1"), "the page shows the bug: %q", obs[5])
	assert.True(t, strings.HasSuffix(obs[11], "\n5"), "the fixed page adds: %q", obs[11])
	assert.True(t, rep.Landed)
	assert.Contains(t, testkit.Git(t, repo, "show", rep.Branch+":site/app.js"), "String(a + b)")
	assert.Contains(t, rep.Files, "browser/screenshot-1.png")
	_, err := os.Stat(filepath.Join(opts.Services.Store.Dir(rep.ID), "browser", "screenshot-1.png"))
	assert.NoError(t, err)
	assert.Empty(t, survivors(), "no browser process outlives the run")
}

// TestBrowserToolSpecs: the browser tools as OpenAI function definitions,
// derived from their docs: what each takes, and what is optional.
func TestBrowserToolSpecs(t *testing.T) {
	specs := map[string]string{}
	for _, tool := range nativeTools(tools.WithBrowser()) {
		specs[tool.Name] = string(tool.Parameters)
	}
	assert.JSONEq(t, `{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`, specs["browser_navigate"])
	assert.JSONEq(t, `{"type":"object","properties":{"selector":{"type":"string"}},"required":["selector"]}`, specs["browser_click"])
	assert.JSONEq(t, `{"type":"object","properties":{"selector":{"type":"string"},"text":{"type":"string"}},"required":["selector","text"]}`, specs["browser_type"])
	assert.JSONEq(t, `{"type":"object","properties":{"selector":{"type":"string"}}}`, specs["browser_read"])
	assert.JSONEq(t, `{"type":"object","properties":{}}`, specs["browser_screenshot"])
	assert.JSONEq(t, `{"type":"object","properties":{}}`, specs["browser_console"])
	assert.Equal(t, "turn 2/40  browser_click #go", heartbeat.ActionLabel(2, 40, "browser_click", tools.Args{"selector": "#go"}))
}
