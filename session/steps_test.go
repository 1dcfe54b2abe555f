package session

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/sandbox/lang"
	"github.com/coreagent/core/sandbox/sandboxtest"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
)

// readStepEvents returns the step events of session id's events.jsonl
// (request, tool, command, deps, check, land), read from the file as any
// reader of it would.
func readStepEvents(t *testing.T, opts Options, id string) []live.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(opts.Services.Store.Dir(id), live.EventsFile))
	require.NoError(t, err)
	defer f.Close()
	var out []live.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e live.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		switch e.Kind {
		case live.EventRequest, live.EventTool, live.EventCommand, live.EventDeps, live.EventCheck, live.EventLand:
			out = append(out, e)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// ofKind returns the events of kind k.
// runCommands are the command events of es but the warm-up's, which
// runs beside the turns and ends when it ends: one, if any, in no turn.
func runCommands(t *testing.T, es []live.Event) []live.Event {
	t.Helper()
	var out []live.Event
	for _, e := range ofKind(es, live.EventCommand) {
		if strings.HasPrefix(e.Text, tools.WarmText) {
			assert.Zero(t, e.Turn, "the warm-up is in no turn")
			continue
		}
		out = append(out, e)
	}
	return out
}

func ofKind(es []live.Event, k live.EventKind) []live.Event {
	var out []live.Event
	for _, e := range es {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// TestStepEvents runs a session on GitHub that is rate limited once,
// writes a file, runs a verification command, has a command declined,
// passes its check and lands: its event log holds every step with its
// true figures, and none of the file's content.
func TestStepEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		bwrap   bool
		backend string
	}{
		{name: "host", backend: "host"},
		{name: "bwrap", bwrap: true, backend: "bwrap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newAppFixture(t)
			srv := llm.NewModelServer(t,
				llm.ErrorReply(429, "slow down"),
				llm.ContentReply(write("calc.go", "package calc\n\n// secret-sauce\n"+builds+"\n")).WithUsage(12000, 34),
				llm.ContentReply("tool: run_shell\ncommand: go vet ./...").WithUsage(13000, 12),
				llm.ContentReply("tool: run_shell\ncommand: rm -rf /tmp/x").WithUsage(14000, 11),
				llm.ContentReply("tool: done\nsummary: Add calc").WithUsage(15000, 9),
			)
			f.g.MustAddRepo(t, "octo", "calc", goModule(builds))
			require.NoError(t, f.g.SetPermission("octo", "calc", f.login, "write"))
			opts := f.options(t, srv)
			opts.Goal.Repo = "octo/calc"
			opts.Verification.Verify = lang.TierBuild
			opts.Limits.Price = &budget.Price{InputPerMtok: 1, OutputPerMtok: 2}
			if tt.bwrap {
				opts.Services.Sandbox = boxSandbox(t, t.TempDir())
			}
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			es := readStepEvents(t, opts, rep.ID)

			reqs := ofKind(es, live.EventRequest)
			require.Len(t, reqs, 4, "a request a turn")
			assert.Equal(t, 1, reqs[0].Retries, "the 429 was sent again")
			for i, want := range [][2]int{{12000, 34}, {13000, 12}, {14000, 11}, {15000, 9}} {
				r := reqs[i]
				assert.Equal(t, i+1, r.Turn)
				assert.Equal(t, "coder", r.Model)
				assert.Equal(t, want, [2]int{r.InputTokens, r.OutputTokens}, "the server's counts, request %d", i+1)
				assert.Positive(t, r.DurationMS)
				require.NotNil(t, r.RequestCostUSD, "priced")
				assert.InDelta(t, (float64(want[0])*1+float64(want[1])*2)/1e6, *r.RequestCostUSD, 1e-9)
				if i > 0 {
					assert.Zero(t, r.Retries)
				}
			}

			tools := ofKind(es, live.EventTool)
			require.Len(t, tools, 4, "an event a call")
			got := make([]string, len(tools))
			for i, e := range tools {
				got[i] = e.Tool + " " + e.Target + " | " + e.Text
				assert.Positive(t, e.DurationMS, e.Tool)
				assert.Equal(t, i+1, e.Turn)
			}
			assert.Equal(t, []string{
				"write_file calc.go | ",
				"run_shell go vet ./... | ",
				"run_shell rm -rf /tmp/x | declined: the human operator did not approve this command",
				"done  | ",
			}, got)

			cmds := runCommands(t, es)
			require.Len(t, cmds, 3, "go vet in the turns, then the check on the start commit and on the result: %v", cmds)
			vet := cmds[0]
			assert.Equal(t, "go vet ./...", vet.Target)
			assert.Equal(t, 2, vet.Turn)
			require.NotNil(t, vet.Exit)
			assert.Equal(t, 0, *vet.Exit)
			assert.Equal(t, tt.backend, vet.Backend)
			assert.Empty(t, vet.Limit)
			assert.Positive(t, vet.DurationMS)
			for i, where := range []string{"on the start commit", "on the result"} {
				c := cmds[1+i]
				assert.Equal(t, "go vet ./...", c.Target)
				assert.Equal(t, where, c.Text)
				require.NotNil(t, c.Exit, where)
				assert.Equal(t, 0, *c.Exit)
				assert.Equal(t, tt.backend, c.Backend, where)
				assert.Positive(t, c.DurationMS, where)
			}

			checks := ofKind(es, live.EventCheck)
			require.Len(t, checks, 1)
			assert.Equal(t, "go vet ./...", checks[0].Check)
			assert.Equal(t, "passing", checks[0].Verdict)
			assert.Positive(t, checks[0].DurationMS)

			lands := ofKind(es, live.EventLand)
			require.Len(t, lands, 1)
			assert.Equal(t, "core-session/"+rep.ID+" "+rep.PRURL, lands[0].Target)
			assert.Contains(t, rep.PRURL, "/octo/calc/pull/")
			assert.Empty(t, lands[0].Text)
			assert.Positive(t, lands[0].DurationMS)
			assert.Equal(t, live.EventLand, es[len(es)-1].Kind, "landing is the last step")

			for _, e := range es {
				b, err := json.Marshal(e)
				require.NoError(t, err)
				assert.NotContains(t, string(b), "secret-sauce", "no file content in a step event")
				assert.NotContains(t, string(b), "do the thing", "no prompt text in a step event")
				assert.NotEmpty(t, strings.TrimSpace(e.String()), "watch prints every step")
				t.Log(e.String())
			}
		})
	}
}

// TestDepsEvents runs npm test on a Node repository whose lockfile names
// a package of a registry on loopback, twice: the dependency step runs
// before the first, and is told once, ok, with its duration; when npm ci
// fails (the registry has not the tarball the lockfile names) it is
// told once, failed, with why; a lockfile that names another host is told
// once, skipped, with why.
func TestDepsEvents(t *testing.T) {
	sandboxtest.RequireBwrap(t)
	t.Parallel()
	for _, tt := range []struct {
		name, verdict string
		// registry is where the host's npm fetches from: the registry on
		// loopback (reg), or an address nothing listens on (dead); the
		// lockfile names greet's tarball there with its integrity, or
		// at a path the registry does not serve (missing).
		registry, tarball string
	}{
		{name: "fetched", verdict: "ok", registry: "reg", tarball: "reg"},
		{name: "tarball missing", verdict: "failed", registry: "reg", tarball: "missing"},
		{name: "lockfile off the registry", verdict: "skipped", registry: "dead", tarball: "reg"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registry.NewRegistry(t)
			tarball, integrity := reg.AddNpm("greet", "1.0.0", map[string]string{
				"package.json": `{"name":"greet","version":"1.0.0","main":"index.js"}`,
				"index.js":     "exports.hello = (who) => 'hello, ' + who;\n",
			})
			url, dead := reg.NpmURL(), "http://127.0.0.1:1" // nothing listens there
			if tt.registry == "dead" {
				url = dead + "/npm/"
			}
			if tt.tarball == "missing" {
				// The registry has no such tarball: npm ci fails (404).
				tarball = strings.Replace(tarball, "greet-1.0.0.tgz", "greet-9.9.9.tgz", 1)
			}
			files := map[string]string{
				"package.json": `{"name":"app","version":"1.0.0","dependencies":{"greet":"1.0.0"},"scripts":{"test":"node --test"}}`,
				"package-lock.json": `{"name":"app","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{` +
					`"":{"name":"app","version":"1.0.0","dependencies":{"greet":"1.0.0"}},` +
					`"node_modules/greet":{"version":"1.0.0","resolved":"` + tarball + `","integrity":"` + integrity + `"}}}`,
				"app.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\nconst { hello } = require('greet');\n" +
					"test('greets', () => assert.strictEqual(hello('world'), 'hello, world'));\n",
			}
			srv := llm.NewModelServer(t,
				llm.ContentReply("tool: run_shell\ncommand: npm test"),
				llm.ContentReply("tool: run_shell\ncommand: npm test"),
				llm.ContentReply("tool: done\nsummary: ran the tests"))
			opts := testOptions(t, srv, testkit.GitRepo(t, files))
			home := t.TempDir()
			sb := sandbox.New(sandbox.Config{Home: home, Mode: sandbox.ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
				HostEnv: []string{"npm_config_registry=" + url}})
			t.Cleanup(func() { _ = sb.Close() })
			sandboxtest.RequireToolchain(t, sb, "node")
			opts.Verification.Verify, opts.Services.Sandbox, opts.Verification.ShellTimeout = lang.TierTest, sb, 5*time.Minute
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			es := readStepEvents(t, opts, rep.ID)
			deps := ofKind(es, live.EventDeps)
			require.Len(t, deps, 1, "told once, not again for the second command: %v", deps)
			assert.Equal(t, tt.verdict, deps[0].Verdict, deps[0].Text)
			assert.Equal(t, 1, deps[0].Turn)
			switch tt.verdict {
			case "ok":
				assert.Empty(t, deps[0].Text)
				assert.Positive(t, deps[0].DurationMS, "the step took its time")
			case "failed":
				assert.NotEmpty(t, deps[0].Text, "why it failed")
				assert.Positive(t, deps[0].DurationMS, "the step ran")
			case "skipped":
				assert.Contains(t, deps[0].Text, "core fetched no dependencies: package-lock.json names 1 package not a tarball of the configured registry")
				assert.Zero(t, deps[0].DurationMS, "no step ran")
			}
			cmds := runCommands(t, es)
			require.GreaterOrEqual(t, len(cmds), 2)
			assert.Equal(t, "npm test", cmds[0].Target)
			assert.Equal(t, "bwrap", cmds[0].Backend)
		})
	}
}

// TestRequestEventOfAnOutage: a request the model server kept failing is
// told with how often it was sent again and why it failed.
func TestRequestEventOfAnOutage(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, llm.ErrorReply(503, "loading model"), llm.ErrorReply(503, "loading model"), llm.ErrorReply(503, "loading model"))
	opts := testOptions(t, srv, repo)
	opts.Services.Client = model.New(model.Config{BaseURL: srv.URL, Model: "coder", MaxAttempts: 3,
		Backoff: model.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}})
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Failed, rep.Status)
	reqs := ofKind(readStepEvents(t, opts, rep.ID), live.EventRequest)
	require.Len(t, reqs, 1)
	assert.Equal(t, 2, reqs[0].Retries, "three attempts: sent again twice")
	assert.Contains(t, reqs[0].Text, "503 Service Unavailable after 3 attempts")
	assert.Equal(t, "coder", reqs[0].Model, "the model asked for, when none answered")
	assert.Zero(t, reqs[0].InputTokens)
	assert.Nil(t, reqs[0].RequestCostUSD, "no price")
}

// TestLandEventWhenNothingLands: a run that changed nothing, and a dry
// run, say in their land event why nothing landed.
func TestLandEventWhenNothingLands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		replies []llm.Reply
		dryRun  bool
		want    string
	}{
		{name: "no change", replies: []llm.Reply{llm.ContentReply("tool: done\nsummary: nothing to do")}, want: "nothing to land: the session changed no file"},
		{name: "dry run", replies: []llm.Reply{llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"), llm.ContentReply("tool: done\nsummary: wrote a")},
			dryRun: true, want: "a dry run: the diff is shown, nothing lands"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llm.NewModelServer(t, tt.replies...)
			opts := testOptions(t, srv, testkit.GitRepo(t, map[string]string{"README": "hi\n"}))
			opts.Landing.DryRun = tt.dryRun
			var out strings.Builder
			opts.Services.Output = &out
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			lands := ofKind(readStepEvents(t, opts, rep.ID), live.EventLand)
			require.Len(t, lands, 1)
			assert.Empty(t, lands[0].Target)
			assert.Equal(t, tt.want, lands[0].Text)
		})
	}
}
