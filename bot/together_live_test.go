package bot

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/action"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/internal/testkit/llm"
)

// dispatchedFix is the bot taking alice's /core fix on a new issue (bob
// may write too) and dispatching the workflow, whose job acts with the
// workflow's token (ghs_workflow): the fixture, the issue, the dispatch's
// inputs.
func dispatchedFix(t *testing.T) (*fixture, int, map[string]any) {
	t.Helper()
	f := newFixture(t, nil, nil)
	require.NoError(t, f.g.SetPermission("octo", "hello", "bob", "write"))
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-1", commentPayload(t, "alice", "User", n, cid, "/core fix", false)))
	f.settle(t)
	ds := f.g.Dispatches("octo", "hello")
	require.Len(t, ds, 1)
	f.g.AddToken("ghs_workflow", "github-actions[bot]")
	require.NoError(t, f.g.SetPermission("octo", "hello", "github-actions[bot]", "write"))
	return f, n, ds[0].Inputs
}

// TestMaintainerSteersADispatchedRun is #28's "done when" on the testkit
// GitHub: a maintainer who commented /core fix follows the run on the
// status comment, adds "also update the README" while it works, sees both
// changes land on one pull request, and the run completes after its idle
// timeout. The bot dispatches the Action naming its starter (the actor
// input); the job takes the starter's comment between turns and refuses
// another writer's with a reply; the bot leaves both to the job.
func TestMaintainerSteersADispatchedRun(t *testing.T) {
	t.Parallel()
	f, n, in := dispatchedFix(t)
	assert.Equal(t, "alice", in["actor"], "the dispatch names who started the run")

	// The workflow (core.yml maps its inputs onto the Action's); the
	// model's first answer waits until the maintainer has written.
	gate := make(chan struct{})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: HELLO").Until(gate),
		llm.ContentReply("tool: write_file\npath: README\ncontent: Say hello, loudly."),
		llm.ContentReply("tool: done\nsummary: Shout, and say so in the README"))
	work := t.TempDir()
	env := workflowEnv(t, f, in, work, srv.URL, map[string]string{"INPUT_IDLE_TIMEOUT": "1s", "INPUT_VERIFY": "off"})
	var stdout, stderr ghfake.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- action.Run(t.Context(), action.Env{Getenv: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr})
	}()
	waitCtx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	require.NoError(t, srv.WaitRequests(waitCtx, 1), "the run's first request to the model")
	assert.Contains(t, statusOf(f, n), "core is on it: fix session", "the maintainer follows the run on the status comment")

	// While it works: alice adds to it, bob tries to.
	mid := f.addComment(t, n, "alice", "/core also update the README")
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-2", commentPayload(t, "alice", "User", n, mid, "/core also update the README", false)))
	bid := f.addComment(t, n, "bob", "/core delete the tests")
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-3", commentPayload(t, "bob", "User", n, bid, "/core delete the tests", false)))
	f.settle(t)
	close(gate)
	require.NoError(t, testkit.Receive(t, done, "the Action's run to land and complete at its idle timeout"), stderr.String())

	assert.Contains(t, stderr.String(), "idle for 1s: the run completes")
	out, err := os.ReadFile(filepath.Join(work, "output"))
	require.NoError(t, err)
	assert.Contains(t, string(out), "completed", "the run's status output")
	assert.Contains(t, stdout.String(), "/core also from @alice: received: the run reads it before its next turn")
	assert.Contains(t, stdout.String(), "refused a message from @bob")

	// Both changes on one pull request.
	pulls := f.g.Pulls("octo", "hello")
	require.Len(t, pulls, 1)
	for file, want := range map[string]string{"hello.txt": "HELLO", "README": "Say hello, loudly."} {
		got, err := exec.Command("git", "-C", f.repo.Dir(), "show", pulls[0].Head+":"+file).Output()
		require.NoError(t, err, file)
		assert.Equal(t, want, strings.TrimSpace(string(got)), file)
	}
	requests := srv.Requests()
	require.Len(t, requests, 3)
	last := requests[1].Messages[len(requests[1].Messages)-1].Content
	assert.Contains(t, last, "Message from @alice:\nalso update the README", "the model read the message between turns")
	for _, r := range requests {
		for _, m := range r.Messages {
			assert.NotContains(t, m.Content, "delete the tests")
		}
	}

	// On the issue: bob refused with the reason, alice's comment taken,
	// no "unknown command" from the bot, and the result in the one status
	// comment.
	var bodies []string
	for _, c := range f.g.Comments("octo", "hello", n) {
		bodies = append(bodies, c.Body)
	}
	all := strings.Join(bodies, "\n---\n")
	assert.Contains(t, all, "core: @bob, only @alice, who started this run, may message or interrupt it.")
	assert.NotContains(t, all, "unknown command")
	assert.Contains(t, statusOf(f, n), "core is done: http", "the status comment ends with the result")
	var took bool
	for _, r := range f.g.CommentReactions("octo", "hello", mid) {
		took = took || r.Content == "+1"
	}
	assert.True(t, took, "alice's message is acknowledged with a reaction")
	assert.Empty(t, f.g.CommentReactions("octo", "hello", bid), "bob's is not")
}

// A dispatched job may start minutes after the bot took its /core fix (it
// waits for a runner). What the starter wrote in between is read as if it
// came while the run worked: the job reads comments from the bot's status
// comment on, not from its own start; another writer's is refused then
// too.
func TestDispatchedRunReadsWhatCameBeforeItStarted(t *testing.T) {
	t.Parallel()
	f, n, in := dispatchedFix(t)
	statusID, err := strconv.ParseInt(in["status_comment_id"].(string), 10, 64)
	require.NoError(t, err)

	// The bot took it three minutes ago; two minutes ago, still waiting
	// for a runner, alice added to it and bob tried to.
	now := time.Now()
	require.NoError(t, f.g.SetCommentTime("octo", "hello", statusID, now.Add(-3*time.Minute)))
	mid, err := f.g.AddComment("octo", "hello", n, ghfake.Comment{User: "alice", Body: "/core also update the README", CreatedAt: now.Add(-2 * time.Minute)})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-2", commentPayload(t, "alice", "User", n, mid, "/core also update the README", false)))
	bid, err := f.g.AddComment("octo", "hello", n, ghfake.Comment{User: "bob", Body: "/core delete the tests", CreatedAt: now.Add(-2 * time.Minute)})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, f.deliver(t, "issue_comment", "d-3", commentPayload(t, "bob", "User", n, bid, "/core delete the tests", false)))
	f.settle(t)

	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: hello.txt\ncontent: HELLO"),
		llm.ContentReply("tool: write_file\npath: README\ncontent: Say hello, loudly."),
		llm.ContentReply("tool: done\nsummary: Shout, and say so in the README"))
	work := t.TempDir()
	env := workflowEnv(t, f, in, work, srv.URL, map[string]string{"INPUT_IDLE_TIMEOUT": "0s", "INPUT_VERIFY": "off"})
	var stdout, stderr ghfake.LockedBuffer
	require.NoError(t, action.Run(t.Context(), action.Env{Getenv: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr}), stderr.String())

	requests := srv.Requests()
	require.NotEmpty(t, requests)
	first := requests[0].Messages
	assert.Contains(t, first[len(first)-1].Content, "Message from @alice:\nalso update the README", "read before the first turn")
	for _, r := range requests {
		for _, m := range r.Messages {
			assert.NotContains(t, m.Content, "delete the tests")
		}
	}
	assert.Contains(t, stdout.String(), "refused a message from @bob")
	var took bool
	for _, r := range f.g.CommentReactions("octo", "hello", mid) {
		took = took || r.Content == "+1"
	}
	assert.True(t, took, "alice's message is acknowledged with a reaction")
	var bodies []string
	for _, c := range f.g.Comments("octo", "hello", n) {
		bodies = append(bodies, c.Body)
	}
	assert.Contains(t, strings.Join(bodies, "\n---\n"), "core: @bob, only @alice, who started this run, may message or interrupt it.")
}
