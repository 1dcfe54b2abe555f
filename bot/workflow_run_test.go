package bot

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dispatched asks for a fix on a new issue and returns the issue and the
// run dispatched for it.
func (f *fixture) dispatched(t *testing.T) (int, *Run) {
	t.Helper()
	n := f.addIssue(t)
	cid := f.addComment(t, n, "alice", "/core fix")
	f.deliver(t, "issue_comment", "dispatch-"+itoa(int64(n)), commentPayload(t, "alice", "User", n, cid, "/core fix", false))
	f.settle(t)
	run, err := f.store.ActiveRun(t.Context(), "octo/hello", n)
	require.NoError(t, err)
	require.NotNil(t, run)
	return n, run
}

// TestWorkflowRunEnds: a dispatched run whose workflow fails gets a note
// saying so and is closed; one that succeeds is closed with the Action's
// words as they are; other workflows' runs are ignored.
func TestWorkflowRunEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		conclusion string
		title      func(runID string) string
		wantState  string
		wantNote   string
	}{
		{name: "failure", conclusion: "failure", title: func(id string) string { return "core fix " + id }, wantState: StateFailed,
			wantNote: "- failed: the [workflow run](https://github.example/octo/hello/actions/runs/5) ended failure."},
		{name: "success", conclusion: "success", title: func(id string) string { return "core fix " + id }, wantState: StateDone},
		{name: "another workflow", conclusion: "failure", title: func(string) string { return "CI" }, wantState: StateRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, nil)
			n, run := f.dispatched(t)
			before := statusOf(f, n)
			started := payload(t, "workflow_run", "completed", map[string]any{
				"action": "in_progress", "workflow_run.event": "workflow_dispatch", "workflow_run.conclusion": nil,
				"workflow_run.display_title": tt.title(run.ID), "workflow_run.html_url": "https://github.example/octo/hello/actions/runs/5",
			})
			assert.Equal(t, http.StatusOK, f.deliver(t, "workflow_run", "wr-started", started))
			f.settle(t)
			got, err := f.store.GetRun(t.Context(), run.ID)
			require.NoError(t, err)
			assert.Equal(t, StateRunning, got.State, "a workflow run in progress changes nothing")
			if tt.wantState != StateRunning {
				assert.Equal(t, "https://github.example/octo/hello/actions/runs/5", got.WorkflowURL, "the run knows its workflow run")
			} else {
				assert.Empty(t, got.WorkflowURL, "another workflow's run is not this run's")
			}
			done := payload(t, "workflow_run", "completed", map[string]any{
				"workflow_run.event": "workflow_dispatch", "workflow_run.conclusion": tt.conclusion,
				"workflow_run.display_title": tt.title(run.ID), "workflow_run.html_url": "https://github.example/octo/hello/actions/runs/5",
			})
			assert.Equal(t, http.StatusOK, f.deliver(t, "workflow_run", "wr-2", done))
			f.settle(t)
			got, err = f.store.GetRun(t.Context(), run.ID)
			require.NoError(t, err)
			assert.Equal(t, tt.wantState, got.State)
			if tt.wantNote != "" {
				assert.Contains(t, statusOf(f, n), tt.wantNote)
				assert.Contains(t, statusOf(f, n), "working on GitHub Actions", "the headline stays")
			} else {
				assert.Equal(t, before, statusOf(f, n), "the status comment is untouched")
			}
		})
	}
}
