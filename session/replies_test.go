package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/session/tools"
	"github.com/coreagent/core/session/transcript"
)

// corpusDir is the reply corpus of the protocol package: the same work
// written in every reply form coder models use.
var corpusDir = filepath.Join("protocol", "testdata", "replies")

// The files the corpus's replies leave in the workspace.
const (
	corpusGreet = "package greet\n\n// Hello says \"hi\" to name.\nfunc Hello(name string) string {\n\treturn \"hello, \" + name + \"\\n\" // a backslash: \\\n}\n\n// Doc: </parameter> and </function> are plain text here.\n"
	corpusNotes = "# Notes\n\ttabbed line\n</parameter>\n</function> </tool_call> as text\n"
)

type corpusAction struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

func corpusActions(t *testing.T) []corpusAction {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, "actions.json"))
	require.NoError(t, err)
	var actions []corpusAction
	require.NoError(t, json.Unmarshal(data, &actions))
	return actions
}

// corpusForms reads each form's replies, in turn order.
func corpusForms(t *testing.T) map[string][]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	forms := map[string][]string{}
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		require.NoError(t, err)
		var replies []string
		for _, f := range ar.Files {
			replies = append(replies, strings.TrimSuffix(string(f.Data), "\n"))
		}
		forms[strings.TrimSuffix(filepath.Base(p), ".txtar")] = replies
	}
	return forms
}

// assertCorpusWork checks what the corpus's session leaves on its branch.
func assertCorpusWork(t *testing.T, repo string, rep *Report) {
	t.Helper()
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Equal(t, "Wrote pkg/greet.go and notes/#1.md.", rep.Summary)
	assert.Equal(t, strings.TrimSuffix(corpusGreet, "\n"), testkit.Git(t, repo, "show", rep.Branch+":pkg/greet.go"))
	assert.Equal(t, strings.TrimSuffix(corpusNotes, "\n"), testkit.Git(t, repo, "show", rep.Branch+":notes/#1.md"))
	var tools []string
	for _, st := range rep.Steps {
		tools = append(tools, st.Tool)
	}
	assert.Equal(t, []string{"write_file", "read_file", "edit_file", "list_dir", "search", "git_diff",
		"write_file", "edit_file", "run_shell", "file_issue", "done"}, tools, "no reply was malformed")
}

// TestReplyForms drives a whole session with each form of the corpus: each
// does the same work as the TOON-driven one.
func TestReplyForms(t *testing.T) {
	t.Parallel()
	for form, replies := range corpusForms(t) {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
			script := make([]llm.Reply, len(replies))
			for i, r := range replies {
				script[i] = llm.ContentReply(r)
			}
			srv := llm.NewModelServer(t, script...)
			rep, err := Run(t.Context(), testOptions(t, srv, repo))
			require.NoError(t, err)
			assertCorpusWork(t, repo, rep)
			reqs := srv.Requests()
			for _, r := range reqs {
				assert.Empty(t, r.Tools, "text mode offers no tools")
			}
			if form == "several" {
				obs := reqs[1].Messages[len(reqs[1].Messages)-1].Content
				assert.Contains(t, obs, "Note: your reply held 2 actions; only the first (write_file) was run.")
			}
		})
	}
}

// nativeScript is the corpus as native tool calls.
func nativeScript(t *testing.T) []llm.Reply {
	t.Helper()
	var script []llm.Reply
	for _, a := range corpusActions(t) {
		script = append(script, llm.ToolCallReply(a.Tool, string(a.Args)))
	}
	return script
}

func TestNativeToolCalls(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	script := append(nativeScript(t),
		// resume: one more call, then done
		llm.ToolCallReply("read_file", `{"path":"README"}`),
		llm.ToolCallReply("done", `{"summary":"read it"}`),
	)
	srv := llm.NewModelServer(t, script...)
	opts := testOptions(t, srv, repo)
	opts.Inference.ToolCalls = ToolCallsNative
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assertCorpusWork(t, repo, rep)

	reqs := srv.Requests()
	require.Len(t, reqs, 11)
	var names []string
	for _, tool := range reqs[0].Tools {
		names = append(names, tool.Function.Name)
	}
	assert.Equal(t, []string{"read_file", "list_dir", "write_file", "edit_file", "search", "git_diff", "run_shell", "file_issue", "done"}, names)
	assert.Contains(t, reqs[0].Messages[0].Content, "Call the tools through function calling")
	// The second request carries the first call and its answer.
	msgs := reqs[1].Messages
	call, answer := msgs[len(msgs)-2], msgs[len(msgs)-1]
	require.Len(t, call.ToolCalls, 1)
	assert.Equal(t, "write_file", call.ToolCalls[0].Function.Name)
	assert.Equal(t, model.RoleTool, answer.Role)
	assert.Equal(t, call.ToolCalls[0].ID, answer.ToolCallID)
	assert.True(t, strings.HasPrefix(answer.Content, "Result of write_file:\n"), answer.Content)

	rec, err := opts.Services.Store.Load(rep.ID)
	require.NoError(t, err)
	assert.Equal(t, ToolCallsNative, rec.ToolCalls, "session.json keeps the mode")
	entries, err := transcript.Read(filepath.Join(opts.Services.Store.Dir(rep.ID), TranscriptFile))
	require.NoError(t, err)
	last := entries[len(entries)-1]
	assert.Equal(t, model.RoleTool, last.Role, "done's call is answered too")
	assert.Equal(t, entries[len(entries)-2].ToolCalls[0].ID, last.ToolCallID)

	// Resume keeps native calls (the option is not given again) and
	// replays the calls with their ids.
	resumeOpts := opts
	resumeOpts.Inference.ToolCalls = ""
	rep2, err := Resume(t.Context(), rep.ID, "now read the README", resumeOpts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep2.Status, rep2.Error)
	reqs = srv.Requests()
	require.Len(t, reqs, 13)
	assert.NotEmpty(t, reqs[11].Tools)
	replayed := reqs[11].Messages
	var ids, answered []string
	for _, m := range replayed {
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
		if m.ToolCallID != "" {
			answered = append(answered, m.ToolCallID)
		}
	}
	assert.Len(t, ids, 11)
	assert.Equal(t, ids, answered, "every call of the transcript is answered, in order")
}

func TestNativeSeveralCalls(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.Reply{ToolCalls: []llm.ToolCall{
			{ID: "a", Name: "write_file", Arguments: `{"path":"a.txt","content":"a"}`},
			{ID: "b", Name: "write_file", Arguments: `{"path":"b.txt","content":"b"}`},
		}},
		llm.ToolCallReply("done", `{"summary":"x"}`),
	)
	opts := testOptions(t, srv, repo)
	opts.Inference.ToolCalls = ToolCallsNative
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.Equal(t, "a", testkit.Git(t, repo, "show", rep.Branch+":a.txt"))
	msgs := srv.Requests()[1].Messages
	first, second := msgs[len(msgs)-2], msgs[len(msgs)-1]
	assert.Equal(t, "a", first.ToolCallID)
	assert.Contains(t, first.Content, "only the first (write_file) was run")
	assert.Equal(t, "b", second.ToolCallID)
	assert.Contains(t, second.Content, "not run: only one action runs per turn")
}

func TestNativeMalformedCall(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.Reply{ToolCalls: []llm.ToolCall{{ID: "bad", Name: "write_file", Arguments: `{"path":`}}},
		llm.ToolCallReply("done", `{"summary":"x"}`),
	)
	opts := testOptions(t, srv, repo)
	opts.Inference.ToolCalls = ToolCallsNative
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.True(t, rep.Steps[0].Malformed)
	msgs := srv.Requests()[1].Messages
	last := msgs[len(msgs)-1]
	assert.Equal(t, model.RoleTool, last.Role)
	assert.Equal(t, "bad", last.ToolCallID)
	assert.Contains(t, last.Content, "the arguments of write_file are not a JSON object")
}

// TestTextModeToolCalls: a server that returns tool calls although none
// were offered still drives the session; the transcript holds them as
// text.
func TestTextModeToolCalls(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, nativeScript(t)...)
	opts := testOptions(t, srv, repo)
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assertCorpusWork(t, repo, rep)
	msgs := srv.Requests()[1].Messages
	reply := msgs[len(msgs)-2]
	assert.Empty(t, reply.ToolCalls)
	assert.Contains(t, reply.Content, "<tool_call>\n{\"name\": \"write_file\"")
	assert.Equal(t, model.RoleUser, msgs[len(msgs)-1].Role)
}

func TestAutoToolCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		refuse bool
		probe  []llm.Reply
		want   string
	}{
		{name: "server takes tools", probe: []llm.Reply{llm.ToolCallReply("ping", "{}")}, want: ToolCallsNative},
		{name: "server refuses tools", refuse: true, want: ToolCallsText},
		{name: "server ignores tools", probe: []llm.Reply{llm.ContentReply("pong")}, want: ToolCallsText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
			done := llm.ContentReply("tool: done\nsummary: x")
			if tt.want == ToolCallsNative {
				done = llm.ToolCallReply("done", `{"summary":"x"}`)
			}
			srv := llm.NewModelServer(t, append(tt.probe, done)...)
			if tt.refuse {
				srv.RefuseTools()
			}
			opts := testOptions(t, srv, repo)
			opts.Inference.ToolCalls = ToolCallsAuto
			var progress strings.Builder
			opts.Live.Progress = &progress
			rep, err := Run(t.Context(), opts)
			require.NoError(t, err)
			require.Equal(t, state.Completed, rep.Status, rep.Error)
			rec, err := opts.Services.Store.Load(rep.ID)
			require.NoError(t, err)
			assert.Equal(t, tt.want, rec.ToolCalls)
			reqs := srv.Requests()
			require.Len(t, reqs, 2, "one probe, one turn")
			assert.Equal(t, tt.want == ToolCallsNative, len(reqs[1].Tools) > 0)
			assert.Contains(t, progress.String(), "tool calls: "+tt.want+" (")
		})
	}
}

func TestToolCallsOptionChecked(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t)
	opts := testOptions(t, srv, testkit.GitRepo(t, map[string]string{"README": "hi\n"}))
	opts.Inference.ToolCalls = "xml"
	_, err := Run(t.Context(), opts)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), `tool-calls: must be text, native or auto, got "xml"`)
}

// TestNativeCallWithoutID: a server that sends tool calls without ids
// gets them answered by ids core makes.
func TestNativeCallWithoutID(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.RawReply(200, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"git_diff","arguments":"{}"}}]},`+
			`"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`),
		llm.ToolCallReply("done", `{"summary":"x"}`),
	)
	opts := testOptions(t, srv, repo)
	opts.Inference.ToolCalls = ToolCallsNative
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	msgs := srv.Requests()[1].Messages
	call, answer := msgs[len(msgs)-2], msgs[len(msgs)-1]
	require.Len(t, call.ToolCalls, 1)
	assert.Equal(t, "core_1_1", call.ToolCalls[0].ID)
	assert.Equal(t, "core_1_1", answer.ToolCallID)
}

// TestNativeToolSchemas holds the function definitions derived from the
// real tool set's docs: a doc change that loses an argument shows here.
func TestNativeToolSchemas(t *testing.T) {
	t.Parallel()
	type schema struct {
		Type       string                       `json:"type"`
		Properties map[string]map[string]string `json:"properties"`
		Required   []string                     `json:"required"`
	}
	want := map[string]struct {
		props    map[string]string
		required []string
	}{
		"read_file":  {map[string]string{"path": "string", "start_line": "integer", "end_line": "integer"}, []string{"path"}},
		"list_dir":   {map[string]string{"path": "string"}, nil},
		"write_file": {map[string]string{"path": "string", "content": "string"}, []string{"path", "content"}},
		"edit_file":  {map[string]string{"path": "string", "old_text": "string", "new_text": "string"}, []string{"path", "old_text", "new_text"}},
		"search":     {map[string]string{"pattern": "string", "path": "string"}, []string{"pattern"}},
		"git_diff":   {map[string]string{}, nil},
		"run_shell":  {map[string]string{"command": "string", "background": "boolean", "box": "boolean", "output": "string", "stop": "string"}, nil},
		"file_issue": {map[string]string{"title": "string", "body": "string"}, []string{"title", "body"}},
		"done":       {map[string]string{"summary": "string"}, []string{"summary"}},
	}
	defs := nativeTools(tools.Default())
	require.Len(t, defs, len(want))
	for _, d := range defs {
		w, ok := want[d.Name]
		require.True(t, ok, d.Name)
		var sc schema
		require.NoError(t, json.Unmarshal(d.Parameters, &sc), d.Name)
		assert.Equal(t, "object", sc.Type)
		props := map[string]string{}
		for k, v := range sc.Properties {
			props[k] = v["type"]
		}
		assert.Equal(t, w.props, props, d.Name)
		assert.Equal(t, w.required, sc.Required, d.Name)
		assert.NotEmpty(t, d.Description, d.Name)
		assert.NotContains(t, d.Description, "tool: "+d.Name, "the TOON example is not the description")
	}
}

// TestNativeCallsScrubbed: a secret in a tool call's arguments is not
// written to the transcript.
func TestNativeCallsScrubbed(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, llm.ToolCallReply("done", `{"summary":"the key is sekrit-value"}`))
	opts := testOptions(t, srv, repo)
	opts.Inference.ToolCalls = ToolCallsNative
	opts.Services.Secrets = []string{"sekrit-value"}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	data, err := os.ReadFile(filepath.Join(opts.Services.Store.Dir(rep.ID), TranscriptFile))
	require.NoError(t, err)
	assert.NotContains(t, string(data), "sekrit-value")
	assert.Contains(t, string(data), `the key is [redacted]`)
}
