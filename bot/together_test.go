package bot

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/action"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/status"
)

// workflowEnv is the environment core.yml gives the Action for the bot's
// dispatch inputs in (the event written under work), with more on top.
func workflowEnv(t *testing.T, f *fixture, in map[string]any, work, modelURL string, more map[string]string) map[string]string {
	t.Helper()
	event, err := json.Marshal(map[string]any{"inputs": in})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, "event.json"), event, 0o600))
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_EVENT_PATH": filepath.Join(work, "event.json"),
		"GITHUB_REPOSITORY": "octo/hello", "GITHUB_API_URL": f.g.APIURL(), "GITHUB_SERVER_URL": "https://github.example",
		"GITHUB_RUN_ID": "4242", "GITHUB_OUTPUT": filepath.Join(work, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(work, "summary"),
		"INPUT_GITHUB_TOKEN": "ghs_workflow", "INPUT_MODE": in["mode"].(string), "INPUT_ISSUE": in["issue"].(string),
		"INPUT_PROMPT": in["instruction"].(string), "INPUT_RUN_ID": in["run_id"].(string), "INPUT_STATUS_COMMENT_ID": in["status_comment_id"].(string),
		"INPUT_ACTOR": in["actor"].(string), "CORE_SESSION_SANDBOX": "off", "CORE_SESSION_INFERENCE_URL": modelURL,
		"RUNNER_TEMP": t.TempDir(), "PATH": os.Getenv("PATH"), "HOME": testkit.GoHome(t),
	}
	maps.Copy(env, more)
	return env
}

// TestBotAndActionShareOneStatusComment runs both halves on one issue of
// one GitHub: the bot takes /core fix and dispatches, the Action (run as
// the dispatched workflow would run it) does the work and writes its
// result into the bot's status comment, then the bot links the pull
// request and hears how the workflow ended. One status comment; the
// Action's words (with its verification line) stay; the bot only adds.
func TestBotAndActionShareOneStatusComment(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix keep it short")
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "t-1", commentPayload(t, "alice", "User", n, cid, "/core fix keep it short", false)))
	f.settle(t)
	ds := f.g.Dispatches("octo", "hello")
	require.Len(t, ds, 1)
	in := ds[0].Inputs
	runID := in["run_id"].(string)

	// The workflow: core.yml maps its inputs onto the Action's.
	f.g.AddToken("ghs_workflow", "github-actions[bot]")
	require.NoError(t, f.g.SetPermission("octo", "hello", "github-actions[bot]", "write"))
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: HELLO"),
		llm.ContentReply("tool: run_shell\ncommand: gofmt -l ."),
		llm.ContentReply("tool: done\nsummary: Shout"))
	work := t.TempDir()
	env := workflowEnv(t, f, in, work, srv.URL, map[string]string{"INPUT_VERIFY": "build", "INPUT_IDLE_TIMEOUT": "0"})
	require.NoError(t, action.Run(t.Context(), action.Env{Getenv: func(k string) string { return env[k] }, Stdout: io.Discard, Stderr: io.Discard}))
	afterAction := statusOf(f, n)
	assert.Contains(t, afterAction, "core is done: http", "the Action wrote its result into the bot's comment")
	assert.Contains(t, afterAction, "(contract held: 1 of 1 checks pass; 3 turns)")

	// The bot hears of the pull request and of the workflow's end.
	pulls := f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 1)
	prURL := fmt.Sprintf("%s/octo/hello/pull/%d", f.g.URL, pulls[0].Number)
	opened := payload(t, "pull_request", "opened", map[string]any{
		"pull_request.head.ref": pulls[0].Head, "pull_request.html_url": prURL, "pull_request.body": pulls[0].Body, "number": pulls[0].Number,
	})
	require.Equal(t, http.StatusOK, f.deliver(t, "pull_request", "t-2", opened))
	completed := payload(t, "workflow_run", "completed", map[string]any{
		"workflow_run.event": "workflow_dispatch", "workflow_run.conclusion": "success",
		"workflow_run.display_title": status.RunName(in["mode"].(string), runID), "workflow_run.id": 4242,
	})
	require.Equal(t, http.StatusOK, f.deliver(t, "workflow_run", "t-3", completed))
	f.settle(t)

	var statuses []string
	for _, c := range f.g.Comments("octo", "hello", n) {
		if strings.Contains(c.Body, status.Marker(runID)) {
			statuses = append(statuses, c.Body)
		}
	}
	require.Len(t, statuses, 1, "one status comment for the run")
	c, ok := status.Parse(statuses[0])
	require.True(t, ok)
	assert.Equal(t, strings.TrimSpace(mustParse(t, afterAction).Text), c.Text, "the bot did not replace the Action's words")
	assert.Equal(t, []string{"pull request: " + prURL}, c.Notes, "the bot added the link")
	assert.Equal(t, int64(4242), c.WorkflowRun)
	run, err := f.store.GetRun(t.Context(), runID)
	require.NoError(t, err)
	assert.Equal(t, StateDone, run.State)
	active, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	assert.Nil(t, active, "the issue is free")
	assert.Equal(t, strconv.Itoa(n), in["issue"])
}

func mustParse(t *testing.T, body string) status.Comment {
	t.Helper()
	c, ok := status.Parse(body)
	require.True(t, ok, body)
	return c
}
