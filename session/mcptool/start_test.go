package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/mcpfake"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/tools"
)

// approver answers every question with yes or no and counts them.
type approver struct {
	yes   bool
	asked atomic.Int32
	last  atomic.Value
}

func (a *approver) Approve(_ context.Context, action string) (bool, error) {
	a.asked.Add(1)
	a.last.Store(action)
	return a.yes, nil
}

func toolEnv(t *testing.T, a tools.Approver) *tools.Env {
	t.Helper()
	ws, err := tools.NewWorkspace(t.TempDir())
	require.NoError(t, err)
	return &tools.Env{Workspace: ws, Approver: a}
}

// started starts planned and returns its tools by name; they stop with
// the test.
func started(t *testing.T, planned []Planned, opts Options) (map[string]tools.Tool, []string) {
	t.Helper()
	s, notes := Start(t.Context(), planned, opts)
	t.Cleanup(s.Close)
	byName := map[string]tools.Tool{}
	for _, tl := range s.Tools() {
		byName[tl.Name()] = tl
	}
	return byName, notes
}

func call(t *testing.T, set *tools.Set, env *tools.Env, name string, args tools.Args) tools.Result {
	t.Helper()
	r, err := set.Run(t.Context(), env, tools.Call{Tool: name, Args: args})
	require.NoError(t, err, "a server's misbehaviour is an observation, never the run's error")
	return r
}

// A user's stdio server (on this machine): its tools are offered by name
// with their schema and doc, called, and every misbehaviour is a tool
// error observation: a hang times out, a flood is cut, a death is said.
func TestHostServer(t *testing.T) {
	t.Parallel()
	bin := mcpfake.Build(t, t.TempDir(), "mcpfake")
	planned := []Planned{{Name: "fake", Where: OnHost, Argv: []string{bin}, Env: []string{"TOKEN=tok-value-123"}, Unattended: true, Secrets: []string{"tok-value-123"}}}
	byName, notes := started(t, planned, Options{CallTimeout: time.Minute, MaxFrame: 1 << 20})
	assert.Equal(t, []string{`MCP server "fake" (on this machine): 7 tools`}, notes)
	for _, n := range []string{"docs", "hang", "flood", "exit", "read_file", "fetch", "getenv"} {
		require.Contains(t, byName, "mcp__fake__"+n)
	}
	docs := byName["mcp__fake__docs"]
	var schema map[string]any
	require.NoError(t, json.Unmarshal(docs.(interface{ Schema() json.RawMessage }).Schema(), &schema))
	assert.Equal(t, "object", schema["type"])
	assert.Contains(t, schema["properties"], "topic")
	assert.Contains(t, docs.Doc(), "mcp__fake__docs: Look up the project's documentation on a topic.\n  tool: mcp__fake__docs\n  topic: text\n")

	var list []tools.Tool
	for _, tl := range byName {
		list = append(list, tl)
	}
	set := tools.NewSet(list...)
	env := toolEnv(t, &approver{})
	env.OutputLimit = 4096
	env.Scrubber = scrub.New()

	assert.Equal(t, mcpfake.DocsAnswer("greeting"), call(t, set, env, "mcp__fake__docs", tools.Args{"topic": "greeting"}).Output)
	assert.Equal(t, "TOKEN=[redacted]", call(t, set, env, "mcp__fake__getenv", tools.Args{"name": "TOKEN"}).Output,
		"a secret the server was given is scrubbed from what its tools return")

	small := call(t, set, env, "mcp__fake__flood", tools.Args{"bytes": "20000"}) // the text protocol's number: a string
	assert.Contains(t, small.Output, "bytes cut", "a result is capped to the output limit")
	assert.LessOrEqual(t, len(small.Output), 4096)

}

// A call the server never answers is abandoned at the call timeout, as a
// tool error; the server answers the next call.
func TestHostServerHang(t *testing.T) {
	t.Parallel()
	bin := mcpfake.Build(t, t.TempDir(), "mcpfake")
	byName, _ := started(t, []Planned{{Name: "fake", Where: OnHost, Argv: []string{bin}, Unattended: true}}, Options{CallTimeout: 5 * time.Second})
	set := tools.NewSet(byName["mcp__fake__hang"], byName["mcp__fake__docs"])
	env := toolEnv(t, nil)
	hang := call(t, set, env, "mcp__fake__hang", tools.Args{})
	assert.Equal(t, `mcp__fake__hang: the MCP server "fake" did not answer within 5s: the call was abandoned`, hang.Output)
	assert.Equal(t, mcpfake.DocsAnswer("x"), call(t, set, env, "mcp__fake__docs", tools.Args{"topic": "x"}).Output, "the server still answers after a call it hung on")
}

// A server that prints a 100 MB line is cut at the frame's bound: the
// call is a tool error, the line never read whole.
func TestHostServerFlood(t *testing.T) {
	t.Parallel()
	bin := mcpfake.Build(t, t.TempDir(), "mcpfake")
	byName, _ := started(t, []Planned{{Name: "fake", Where: OnHost, Argv: []string{bin}, Unattended: true}}, Options{CallTimeout: time.Minute, MaxFrame: 1 << 20})
	set := tools.NewSet(byName["mcp__fake__flood"])
	flood := call(t, set, toolEnv(t, nil), "mcp__fake__flood", tools.Args{"bytes": 100 << 20})
	assert.Contains(t, flood.Output, `mcp__fake__flood: the MCP server "fake" failed`, "a 100 MB line is cut, not read whole")
	assert.NotContains(t, flood.Output, "xxxxxxxxxx")
}

func TestHostServerExit(t *testing.T) {
	t.Parallel()
	bin := mcpfake.Build(t, t.TempDir(), "mcpfake")
	byName, _ := started(t, []Planned{{Name: "fake", Where: OnHost, Argv: []string{bin}, Unattended: true}}, Options{CallTimeout: 10 * time.Second})
	set := tools.NewSet(byName["mcp__fake__exit"], byName["mcp__fake__docs"])
	env := toolEnv(t, nil)
	died := call(t, set, env, "mcp__fake__exit", tools.Args{})
	assert.Contains(t, died.Output, `mcp__fake__exit: the MCP server "fake" failed`)
	after := call(t, set, env, "mcp__fake__docs", tools.Args{"topic": "x"})
	assert.Contains(t, after.Output, `mcp__fake__docs: the MCP server "fake" failed`, "a dead server's tools are errors, not a stuck run")
}

// A server the user's settings do not mark unattended is called only
// when a person approves; unattended (no one to ask), the call is
// declined and the server never sees it.
func TestGate(t *testing.T) {
	t.Parallel()
	bin := mcpfake.Build(t, t.TempDir(), "mcpfake")
	byName, _ := started(t, []Planned{{Name: "fake", Where: OnHost, Argv: []string{bin}}}, Options{})
	set := tools.NewSet(byName["mcp__fake__docs"])

	unattended := call(t, set, toolEnv(t, tools.DenyApprover{}), "mcp__fake__docs", tools.Args{"topic": "a"})
	assert.Equal(t, Declined, unattended.Output)

	no := &approver{}
	assert.Equal(t, Declined, call(t, set, toolEnv(t, no), "mcp__fake__docs", tools.Args{"topic": "a"}).Output)
	assert.Equal(t, int32(1), no.asked.Load())

	yes := &approver{yes: true}
	assert.Equal(t, mcpfake.DocsAnswer("a"), call(t, set, toolEnv(t, yes), "mcp__fake__docs", tools.Args{"topic": "a"}).Output)
	assert.Equal(t, `mcp__fake__docs (MCP server "fake", on this machine): {"topic":"a"}`, yes.last.Load())
}

// A remote server is contacted only when the user's settings allow its
// host: a repository's server on a host they do not name gets no request.
func TestRemoteServer(t *testing.T) {
	t.Parallel()
	srv := mcpfake.NewHTTP(t)
	repo := parse(t, fmt.Sprintf(`{"mcpServers": {"remote": {"type": "http", "url": %q}}}`, srv.URL), true)

	planned, notes := Plan(nil, repo, os.Getenv)
	byName, startNotes := started(t, planned, Options{})
	assert.Empty(t, byName)
	assert.Len(t, notes, 1)
	assert.Empty(t, startNotes)
	assert.Zero(t, srv.Requests(), "a host the settings do not allow is never contacted")

	host := strings.TrimPrefix(srv.URL, "http://")
	settings := parse(t, fmt.Sprintf(`{"mcpServers": {}, "core": {"allowHosts": [%q], "unattended": ["remote"]}}`, host), false)
	planned, _ = Plan([]File{settings}, repo, os.Getenv)
	byName, _ = started(t, planned, Options{MaxFrame: 1 << 20, CallTimeout: time.Minute})
	require.Contains(t, byName, "mcp__remote__docs")
	set := tools.NewSet(byName["mcp__remote__docs"], byName["mcp__remote__flood"])
	env := toolEnv(t, nil)
	assert.Equal(t, mcpfake.DocsAnswer("b"), call(t, set, env, "mcp__remote__docs", tools.Args{"topic": "b"}).Output)
	assert.Positive(t, srv.Requests())

	// 8 MB, four times the response bound: the server is in this test's
	// process, which -race makes too slow to encode 100 MB (the stdio
	// server's 100 MB line: TestHostServerFlood).
	flood := call(t, set, env, "mcp__remote__flood", tools.Args{"bytes": 8 << 20})
	assert.Contains(t, flood.Output, `the MCP server "remote" failed`, "a response over the bound is cut")
	assert.NotContains(t, flood.Output, "xxxxxxxxxx")
}

// A remote server's client reaches its own host alone: a redirect
// elsewhere is refused.
func TestRemoteRedirectRefused(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	redirect := httptest.NewServer(http.RedirectHandler(other.URL+"/mcp", http.StatusTemporaryRedirect))
	defer redirect.Close()
	_, notes := started(t, []Planned{{Name: "r", Where: Remote, URL: redirect.URL}}, Options{StartTimeout: 5 * time.Second})
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], `MCP server "r" (remote) left out`)
	assert.Zero(t, elsewhere.Load())
}

// Tool names are made safe and unique, and bounded in length.
func TestUniqueName(t *testing.T) {
	t.Parallel()
	taken := map[string]bool{}
	assert.Equal(t, "mcp__a_b__c_d", uniqueName("a.b", "c d", taken))
	assert.Equal(t, "mcp__a_b__c_d_2", uniqueName("a.b", "c/d", taken))
	long := uniqueName("s", strings.Repeat("x", 100), taken)
	assert.Len(t, long, maxName)
	assert.Len(t, uniqueName("s", strings.Repeat("x", 100), taken), maxName)
	assert.NotEqual(t, long, uniqueName("s", strings.Repeat("x", 101), taken))
}

// A server that cannot start, or starts and never speaks MCP, is left out
// with why; the others are kept.
func TestStartFailuresLeftOut(t *testing.T) {
	t.Parallel()
	bin := mcpfake.Build(t, t.TempDir(), "mcpfake")
	planned := []Planned{
		{Name: "missing", Where: OnHost, Argv: []string{filepath.Join(t.TempDir(), "no-such-server")}},
		{Name: "silent", Where: OnHost, Argv: []string{"sleep", "600"}},
		{Name: "repo", Where: InBox, Argv: []string{"./server"}},
		{Name: "fake", Where: OnHost, Argv: []string{bin}},
	}
	byName, notes := started(t, planned, Options{StartTimeout: 2 * time.Second, HostEnv: []string{"PATH=" + os.Getenv("PATH")}})
	require.Len(t, notes, 4)
	assert.Contains(t, notes[0], `MCP server "missing" (on this machine) left out: start`)
	assert.Contains(t, notes[1], `MCP server "silent" (on this machine) left out: no MCP handshake within 2s`)
	assert.Equal(t, `MCP server "repo" (in the run's box) left out: a repository's server runs only in the run's box, and this run has none`, notes[2])
	assert.Equal(t, `MCP server "fake" (on this machine): 7 tools`, notes[3])
	assert.Len(t, byName, 7)
}
