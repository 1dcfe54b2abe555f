package bot

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/status"
)

func TestLabelAndMissingWorkflow(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.Workflow = "missing.yml" }, nil)
	n := f.addIssue(t)
	p := payload(t, "issues", "labeled", map[string]any{"label.name": status.FixLabel, "issue.number": n, "issue.pull_request": nil, "sender.login": "alice", "sender.type": "User"})
	assert.Equal(t, http.StatusOK, f.deliver(t, "issues", "l-1", p))
	f.settle(t)
	comments := botComments(f, n)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0].Body, "this repository has no workflow `.github/workflows/missing.yml`")
}

// labelPayload is a core:fix label put on number by login, through the
// issues event or, onPull, the pull_request event.
func labelPayload(t testing.TB, login, userType string, number int, onPull bool) (event string, p []byte) {
	t.Helper()
	if onPull {
		return "pull_request", payload(t, "pull_request", "labeled", map[string]any{"label.name": status.FixLabel, "number": number, "pull_request.number": number, "sender.login": login, "sender.type": userType})
	}
	return "issues", payload(t, "issues", "labeled", map[string]any{"label.name": status.FixLabel, "issue.number": number, "issue.pull_request": nil, "sender.login": login, "sender.type": userType})
}

// TestLabelByABotIsRefused: a bot that may write to the repository (an
// App's installation, a bot account) labels an issue or a pull request:
// no run starts and nothing is said; the same label by a person starts one.
func TestLabelByABotIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, login, userType string
		onPull, wantRun       bool
	}{
		{name: "a person on an issue", login: "alice", userType: "User", wantRun: true},
		{name: "a person on a pull request", login: "alice", userType: "User", onPull: true, wantRun: true},
		{name: "a bot by type on an issue", login: "helper", userType: "Bot"},
		{name: "a bot by type on a pull request", login: "helper", userType: "Bot", onPull: true},
		{name: "a bot by suffix on an issue", login: "renovate[bot]", userType: "User"},
		{name: "a bot by suffix on a pull request", login: "renovate[bot]", userType: "User", onPull: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, nil)
			require.NoError(t, f.g.SetPermission("octo", "hello", tt.login, "write"))
			n := f.addIssue(t)
			event, p := labelPayload(t, tt.login, tt.userType, n, tt.onPull)
			assert.Equal(t, http.StatusOK, f.deliver(t, event, "bot-label-1", p))
			f.settle(t)
			dispatches := f.g.Dispatches("octo", "hello")
			if !tt.wantRun {
				assert.Empty(t, dispatches, "a bot started a run")
				assert.Empty(t, botComments(f, n), "a bot is refused without a reply")
				return
			}
			require.Len(t, dispatches, 1)
			want := KindFix
			if tt.onPull {
				want = KindResolve
			}
			assert.Equal(t, want, dispatches[0].Inputs["mode"])
		})
	}
}

// TestRedeliveredLabelAfterTheRunEnded: GitHub redelivers a label event
// (a retry, or "Redeliver" in the App's settings) after its run finished.
// A label has no comment to tell it apart, and the issue has no active run
// any more: only the delivery id says it was handled.
func TestRedeliveredLabelAfterTheRunEnded(t *testing.T) {
	t.Parallel()
	for _, onPull := range []bool{false, true} {
		t.Run(map[bool]string{false: "issue", true: "pull request"}[onPull], func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, nil)
			n := f.addIssue(t)
			event, p := labelPayload(t, "alice", "User", n, onPull)
			assert.Equal(t, http.StatusOK, f.deliver(t, event, "label-1", p))
			f.settle(t)
			require.Len(t, f.g.Dispatches("octo", "hello"), 1)
			run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
			require.NoError(t, err)
			require.NotNil(t, run, "the label started a run")
			done := payload(t, "workflow_run", "completed", map[string]any{
				"workflow_run.event": "workflow_dispatch", "workflow_run.conclusion": "success",
				"workflow_run.display_title": "core " + run.Kind + " " + run.ID, "workflow_run.html_url": "https://github.example/octo/hello/actions/runs/5",
			})
			assert.Equal(t, http.StatusOK, f.deliver(t, "workflow_run", "label-2", done))
			f.settle(t)
			run, err = f.store.ActiveRun(t.Context(), "octo/hello", n)
			require.NoError(t, err)
			require.Nil(t, run, "the run ended")

			assert.Equal(t, http.StatusOK, f.deliver(t, event, "label-1", p))
			f.settle(t)
			assert.Len(t, f.g.Dispatches("octo", "hello"), 1, "the redelivery started a second run")
		})
	}
}
