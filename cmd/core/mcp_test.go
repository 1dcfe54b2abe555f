package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// coreProgram is this test binary under the name core: run so, it is
// core's main (TestMain's testscript.Main), as the scripts run it.
func coreProgram(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "core")
	require.NoError(t, os.Symlink(exe, bin))
	return bin
}

// mcpEnv is the environment of a core process of these tests: its own
// home, no model server unless one is given.
func mcpEnv(t *testing.T, home string) []string {
	t.Helper()
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CORE_HOME=" + home,
		"XDG_CACHE_HOME=" + filepath.Join(home, "user-cache"),
		"CORE_SESSION_INFERENCE_URL=http://127.0.0.1:9/", "CORE_SESSION_IDLE_TIMEOUT=0",
	}
}

// mcpRun is what a test of a run through core mcp starts from: a
// repository of one README, the scripted model server, core's home and
// the environment of a core process that uses that model.
func mcpRun(t *testing.T, replies ...llm.Reply) (repo string, model *llm.ModelServer, home string, environ []string) {
	t.Helper()
	repo = testkit.GitRepo(t, map[string]string{"README.md": "hello\n"})
	model = llm.NewModelServer(t, replies...)
	home = t.TempDir()
	return repo, model, home, append(mcpEnv(t, home), "CORE_SESSION_INFERENCE_URL="+model.URL)
}

// mcpClient starts core mcp with args, as an editor would, and connects.
func mcpClient(t *testing.T, bin string, environ []string, args ...string) (*mcp.ClientSession, *ghfake.LockedBuffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = environ
	stderr := &ghfake.LockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	// A busy machine may take its time to end the runs: no SIGTERM early.
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: testkit.Patience}, nil)
	require.NoError(t, err, "connect to core mcp")
	t.Cleanup(func() { cs.Close() })
	return cs, stderr
}

// call calls a tool and returns its result's text, failing on a
// protocol error (a tool error is the caller's to check).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "call %s", name)
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// callOK calls a tool that must succeed and decodes its JSON into out.
func callOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	text, isErr := call(t, cs, name, args)
	require.False(t, isErr, "%s failed: %s", name, text)
	if out != nil {
		require.NoError(t, json.Unmarshal([]byte(text), out), "%s returned %s", name, text)
	}
}

// followUntil follows session id's events from the start, call after
// call with the cursor each returns, until done says so of an answer,
// and returns every event read.
func followUntil(t *testing.T, cs *mcp.ClientSession, id, what string, done func(followOut) bool) []live.Event {
	t.Helper()
	deadline := time.Now().Add(testkit.Patience)
	var events []live.Event
	next := 0
	for time.Now().Before(deadline) {
		var out followOut
		callOK(t, cs, "follow_session", map[string]any{"id": id, "after": next, "wait_seconds": 5}, &out)
		assert.GreaterOrEqual(t, out.Next, next, "the cursor never goes back")
		events, next = append(events, out.Events...), out.Next
		if done(out) {
			return events
		}
		require.False(t, out.Ended, "session %s ended (%s) before %s", id, out.Status, what)
	}
	t.Fatalf("waited %s for %s; the events: %v", testkit.Patience, what, events)
	return nil
}

// followToEnd follows session id to the end of its run and returns its
// events and the status it ended in.
func followToEnd(t *testing.T, cs *mcp.ClientSession, id string) (events []live.Event, status string) {
	t.Helper()
	events = followUntil(t, cs, id, "the run's end", func(out followOut) bool {
		status = out.Status
		return out.Ended
	})
	return events, status
}

// TestMCPDrivesARun: an MCP client starts a session through core mcp,
// sends it a message while its model works, follows its events to the
// end, reads its report; starts another and stops it. Both runs are
// real: a real repository, the real binary, the scripted model.
func TestMCPDrivesARun(t *testing.T) {
	t.Parallel()
	held := make(chan struct{})
	repo, model, _, environ := mcpRun(t,
		llm.ToolCallReply("write_file", `{"path":"one.txt","content":"1"}`).Until(held),
		llm.ToolCallReply("write_file", `{"path":"two.txt","content":"2"}`),
		llm.ToolCallReply("done", `{"summary":"wrote one and two"}`),
	)
	cs, stderr := mcpClient(t, coreProgram(t), environ, "--repo", repo)

	var started startOut
	callOK(t, cs, "start_session", map[string]any{"repo": repo, "prompt": "write one"}, &started)
	require.NotEmpty(t, started.ID)
	assert.NotEqual(t, "pending", started.Status, "start_session returns once the run has started")

	// The model holds its first reply: the run is mid-turn when the
	// message arrives, and reads it before its next turn.
	require.NoError(t, model.WaitRequests(t.Context(), 1))
	var ack map[string]string
	callOK(t, cs, "send_message", map[string]any{"id": started.ID, "text": "also write two"}, &ack)
	assert.NotEmpty(t, ack["reply"])
	close(held)

	events, status := followToEnd(t, cs, started.ID)
	assert.Equal(t, "completed", status, "stderr: %s", stderr)
	var kinds []live.EventKind
	sawMessage := false
	for _, ev := range events {
		kinds = append(kinds, ev.Kind)
		sawMessage = sawMessage || ev.Kind == live.EventMessage && strings.Contains(ev.Text, "also write two")
	}
	assert.True(t, sawMessage, "the message is in the run's events: %v", kinds)
	assert.Contains(t, kinds, live.EventTurn)
	last := events[len(events)-1]
	assert.Equal(t, live.EventState, last.Kind)
	assert.Equal(t, "completed", string(last.Status))
	reqs := model.Requests()
	require.Len(t, reqs, 3)
	second, _ := json.Marshal(reqs[1].Messages)
	assert.Contains(t, string(second), "also write two", "the model saw the message in its next request")

	report, isErr := call(t, cs, "read_report", map[string]any{"id": started.ID})
	require.False(t, isErr, report)
	var rep struct {
		ID, Status string
	}
	require.NoError(t, json.Unmarshal([]byte(report), &rep))
	assert.Equal(t, started.ID, rep.ID)

	var list struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	callOK(t, cs, "list_sessions", nil, &list)
	require.Len(t, list.Sessions, 1)
	assert.Equal(t, started.ID, list.Sessions[0].ID)

	// Without --allow-land the run was a dry run, and land is refused.
	text, isErr := call(t, cs, "land_session", map[string]any{"id": started.ID})
	assert.True(t, isErr)
	assert.Contains(t, text, "landing is not allowed")
	out, err := exec.Command("git", "-C", repo, "branch", "--list", "core-session/*").Output()
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(string(out)), "nothing landed")

	// A second run, stopped while its model holds its reply.
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	slow := llm.NewModelServer(t, llm.ToolCallReply("write_file", `{"path":"x.txt","content":"x"}`).Until(never))
	callOK(t, cs, "start_session", map[string]any{"repo": repo, "prompt": "take your time",
		"settings": map[string]string{"inference-url": slow.URL}}, &started)
	require.NoError(t, slow.WaitRequests(t.Context(), 1))
	followUntil(t, cs, started.ID, "the run to be active", func(out followOut) bool {
		return slices.ContainsFunc(out.Events, func(ev live.Event) bool { return ev.Kind == live.EventState && ev.Status == "active" })
	})
	callOK(t, cs, "stop_session", map[string]any{"id": started.ID}, &ack)
	_, status = followToEnd(t, cs, started.ID)
	assert.Equal(t, "cancelled", status)
}

// TestMCPRefusals: a run refused at pre-flight is a tool error with the
// text core session start prints; a repository outside the allow-list,
// a setting that is no flag and a session outside it are refused.
func TestMCPRefusals(t *testing.T) {
	t.Parallel()
	bin := coreProgram(t)
	repo := testkit.GitRepo(t, map[string]string{"README.md": "hello\n"})
	other := testkit.GitRepo(t, map[string]string{"README.md": "other\n"})
	model := llm.NewModelServer(t)
	model.AllowExhaustion()
	home := t.TempDir()
	environ := mcpEnv(t, home)
	cs, _ := mcpClient(t, bin, environ, "--repo", repo)

	// The CLI's own words, from the same binary with the same options.
	cli := func(args ...string) string {
		cmd := exec.Command(bin, append([]string{"session", "start", "--repo", repo, "--prompt", "p"}, args...)...)
		cmd.Env = environ
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.Error(t, cmd.Run(), "core session start %v must be refused", args)
		return strings.TrimSuffix(strings.TrimPrefix(stderr.String(), "core: "), "\n")
	}
	tests := []struct {
		name     string
		settings map[string]string
		cliArgs  []string
	}{
		{name: "no model server", settings: nil, cliArgs: nil},
		{name: "a base the repository lacks", settings: map[string]string{"inference-url": model.URL},
			cliArgs: []string{"--inference-url", model.URL, "--base", "nope"}},
		{name: "a bad value", settings: map[string]string{"max-turns": "lots"}, cliArgs: []string{"--max-turns", "lots"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"repo": repo, "prompt": "p"}
			if tc.settings != nil {
				args["settings"] = tc.settings
			}
			if tc.name == "a base the repository lacks" {
				args["base"] = "nope"
			}
			text, isErr := call(t, cs, "start_session", args)
			require.True(t, isErr, "refused: %s", text)
			assert.Equal(t, cli(tc.cliArgs...), text)
		})
	}

	text, isErr := call(t, cs, "start_session", map[string]any{"repo": other, "prompt": "p"})
	assert.True(t, isErr)
	assert.Contains(t, text, "is not a repository core mcp serves")
	text, isErr = call(t, cs, "start_session", map[string]any{"repo": repo, "prompt": "p", "settings": map[string]string{"api-key": "x"}})
	assert.True(t, isErr)
	assert.Contains(t, text, `"api-key" is not a flag of core session start`)
	text, isErr = call(t, cs, "follow_session", map[string]any{"id": "../../etc"})
	assert.True(t, isErr)
	assert.Contains(t, text, "no session ../../etc")
	var list struct {
		Sessions []any `json:"sessions"`
	}
	callOK(t, cs, "list_sessions", nil, &list)
	assert.Empty(t, list.Sessions, "no refused run left a session")
	assert.Zero(t, len(model.Requests()), "no refused run asked the model anything")
}

// TestMCPNeedsRepos: core mcp without --repo, or with a wildcard, is
// refused before it serves.
func TestMCPNeedsRepos(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"mcp"}, {"mcp", "--repo", "acme/*"}, {"mcp", "--repo", "not a repo"}} {
		_, _, err := runCore(t, "", map[string]string{"CORE_HOME": t.TempDir()}, args...)
		require.Error(t, err, "%v", args)
		assert.Contains(t, err.Error(), "--repo", "%v", args)
	}
}

// TestRepoAllowed: the one rule of which repositories core mcp acts on.
func TestRepoAllowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	other := t.TempDir()
	allow, err := allowList([]string{"Acme/App", link})
	require.NoError(t, err)
	tests := []struct {
		name string
		repo string
		want bool
	}{
		{name: "the name", repo: "Acme/App", want: true},
		{name: "the name in other case", repo: "acme/app", want: true},
		{name: "another name", repo: "acme/other"},
		{name: "a prefix of the name", repo: "acme/ap"},
		{name: "the directory through its link", repo: link, want: true},
		{name: "the directory itself", repo: dir, want: true},
		{name: "another directory", repo: other},
		{name: "a directory below", repo: filepath.Join(dir, "sub")},
		{name: "nothing", repo: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, repoAllowed(allow, tc.repo))
		})
	}
}

// TestMCPExitStopsItsRuns: when its client goes away, core mcp stops the
// runs it started, as serve does on SIGTERM: they end cancelled, their
// work kept, and resume continues them.
func TestMCPExitStopsItsRuns(t *testing.T) {
	t.Parallel()
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	repo, model, home, environ := mcpRun(t,
		llm.ToolCallReply("write_file", `{"path":"x.txt","content":"x"}`).Until(never),
	)
	cs, stderr := mcpClient(t, coreProgram(t), environ, "--repo", repo)
	var started startOut
	callOK(t, cs, "start_session", map[string]any{"repo": repo, "prompt": "take your time"}, &started)
	require.NoError(t, model.WaitRequests(t.Context(), 1))
	require.NoError(t, cs.Close(), "core mcp exits when its stdin closes")

	store, err := session.OpenStore(home)
	require.NoError(t, err)
	rec, err := store.Load(started.ID)
	require.NoError(t, err)
	assert.Equal(t, state.Cancelled, rec.Status, "stderr: %s", stderr)
}

// TestMCPLands: under --allow-land, a session run as a dry run lands
// through land_session, as core session land lands it: on its branch in
// the local repository.
func TestMCPLands(t *testing.T) {
	t.Parallel()
	repo, _, _, environ := mcpRun(t,
		llm.ToolCallReply("write_file", `{"path":"one.txt","content":"1"}`),
		llm.ToolCallReply("done", `{"summary":"wrote one"}`),
	)
	cs, stderr := mcpClient(t, coreProgram(t), environ, "--repo", repo, "--allow-land")
	var started startOut
	callOK(t, cs, "start_session", map[string]any{"repo": repo, "prompt": "write one", "settings": map[string]string{"dry-run": "true"}}, &started)
	_, status := followToEnd(t, cs, started.ID)
	require.Equal(t, "completed", status, "stderr: %s", stderr)
	branch := "core-session/" + started.ID
	require.Error(t, exec.Command("git", "-C", repo, "rev-parse", "--verify", branch).Run(), "a dry run lands nothing")

	var landed struct {
		Status string `json:"status"`
	}
	callOK(t, cs, "land_session", map[string]any{"id": started.ID}, &landed)
	out, err := exec.Command("git", "-C", repo, "show", branch+":one.txt").Output()
	require.NoError(t, err, "land_session landed the work on %s (status %s)", branch, landed.Status)
	assert.Equal(t, "1", strings.TrimSpace(string(out)))
}

// TestMCPResumes: a run stopped through core mcp is continued by
// resume_session with a new instruction, as core session resume does:
// the same session, its transcript replayed with the instruction, its
// workspace kept; a live run is not resumed, nor one outside the
// allow-list, nor without an instruction.
func TestMCPResumes(t *testing.T) {
	t.Parallel()
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	repo, model, home, environ := mcpRun(t,
		llm.ToolCallReply("write_file", `{"path":"one.txt","content":"1"}`),
		llm.ToolCallReply("write_file", `{"path":"held.txt","content":"x"}`).Until(never),
		llm.ToolCallReply("write_file", `{"path":"two.txt","content":"2"}`),
		llm.ToolCallReply("done", `{"summary":"wrote one and two"}`),
	)
	cs, stderr := mcpClient(t, coreProgram(t), environ, "--repo", repo)
	var started startOut
	callOK(t, cs, "start_session", map[string]any{"repo": repo, "prompt": "write one"}, &started)
	require.NoError(t, model.WaitRequests(t.Context(), 2))

	text, isErr := call(t, cs, "resume_session", map[string]any{"id": started.ID, "instruction": "go on"})
	assert.True(t, isErr, "a live run is not resumed: %s", text)
	assert.Contains(t, text, "its run goes on")

	var ack map[string]string
	callOK(t, cs, "stop_session", map[string]any{"id": started.ID}, &ack)
	_, status := followToEnd(t, cs, started.ID)
	require.Equal(t, "cancelled", status, "stderr: %s", stderr)

	text, isErr = call(t, cs, "resume_session", map[string]any{"id": started.ID, "instruction": "  "})
	assert.True(t, isErr)
	assert.Contains(t, text, "resume needs an instruction")
	text, isErr = call(t, cs, "resume_session", map[string]any{"id": started.ID, "instruction": "go on", "settings": map[string]string{"api-key": "x"}})
	assert.True(t, isErr)
	assert.Contains(t, text, `"api-key" is not a flag`)

	var resumed startOut
	callOK(t, cs, "resume_session", map[string]any{"id": started.ID, "instruction": "now write two", "settings": map[string]string{"max-turns": "5"}}, &resumed)
	assert.Equal(t, started.ID, resumed.ID, "the same session goes on")
	_, status = followToEnd(t, cs, started.ID)
	require.Equal(t, "completed", status, "stderr: %s", stderr)

	reqs := model.Requests()
	require.Len(t, reqs, 4)
	third, err := json.Marshal(reqs[2].Messages)
	require.NoError(t, err)
	assert.Contains(t, string(third), "now write two", "the resumed run's first request has the instruction")
	assert.Contains(t, string(third), "one.txt", "and the transcript before it")
	store, err := session.OpenStore(home)
	require.NoError(t, err)
	rec, err := store.Load(started.ID)
	require.NoError(t, err)
	for _, name := range []string{"one.txt", "two.txt"} {
		_, err := os.Stat(filepath.Join(rec.Workspace, name))
		assert.NoError(t, err, "%s in the kept workspace", name)
	}
	out, err := exec.Command("git", "-C", repo, "branch", "--list", "core-session/*").Output()
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(string(out)), "without --allow-land the resumed run was a dry run too")

	// A session of a repository core mcp does not serve is not resumed.
	other := testkit.GitRepo(t, map[string]string{"README.md": "other\n"})
	cs2, _ := mcpClient(t, coreProgram(t), environ, "--repo", other)
	text, isErr = call(t, cs2, "resume_session", map[string]any{"id": started.ID, "instruction": "go on"})
	assert.True(t, isErr)
	assert.Contains(t, text, "is not a repository core mcp serves")
}

// TestMCPFollowStreamsProgress: a follow_session call that carries a
// progress token gets each event as a progress notification as it is
// written (its message the line core session watch prints, its progress
// the event's cursor), and the call's result has the same events.
func TestMCPFollowStreamsProgress(t *testing.T) {
	t.Parallel()
	repo, _, _, environ := mcpRun(t,
		llm.ToolCallReply("write_file", `{"path":"one.txt","content":"1"}`),
		llm.ToolCallReply("done", `{"summary":"wrote one"}`),
	)
	var (
		mu    sync.Mutex
		notes []*mcp.ProgressNotificationParams
	)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, req.Params)
		}})
	cmd := exec.Command(coreProgram(t), "mcp", "--repo", repo)
	cmd.Env = environ
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: testkit.Patience}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	var started startOut
	callOK(t, cs, "start_session", map[string]any{"repo": repo, "prompt": "write one"}, &started)

	var events []live.Event
	next, calls := 0, 0
	for deadline := time.Now().Add(testkit.Patience); time.Now().Before(deadline); calls++ {
		params := &mcp.CallToolParams{Name: "follow_session", Arguments: map[string]any{"id": started.ID, "after": next, "wait_seconds": 30}}
		params.SetProgressToken(fmt.Sprintf("follow-%d", calls))
		res, err := cs.CallTool(t.Context(), params)
		require.NoError(t, err)
		require.False(t, res.IsError)
		var out followOut
		require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out))
		events, next = append(events, out.Events...), out.Next
		if out.Ended {
			break
		}
	}
	require.NotEmpty(t, events)
	assert.Equal(t, string(live.EventState), string(events[len(events)-1].Kind))
	// A notification may trail its call's result on the wire.
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(notes) >= len(events)
	}, testkit.Patience, 10*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, notes, len(events), "one notification an event")
	for i, n := range notes {
		assert.Equal(t, float64(i+1), n.Progress, "the event's cursor")
		// The time of day is each process's local time: the rest is the line.
		assert.Equal(t, events[i].String()[8:], n.Message[8:])
	}
	assert.Less(t, calls, len(events), "a streaming call returns more than its first event")
}
