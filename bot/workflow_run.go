package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
)

// WorkflowRun handles the end of a dispatched workflow run: its run-name
// carries the bot's run id (core's workflow sets run-name to "core MODE
// RUN-ID"), so the run's status comment says how it ended when the session
// itself could not.
type WorkflowRun struct {
	*Base
}

var _ githubapp.EventHandler = (*WorkflowRun)(nil)

// Handles lists the events this handler takes.
func (h *WorkflowRun) Handles() []string { return []string{"workflow_run"} }

var runIDInTitle = regexp.MustCompile(`\bcore (?:fix|resolve) ([0-9a-z-]+)\b`)

// Handle handles one workflow_run delivery.
func (h *WorkflowRun) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev github.WorkflowRunEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse workflow_run event: %w", err)
	}
	wr := ev.GetWorkflowRun()
	if ev.GetAction() != "completed" || wr.GetEvent() != "workflow_dispatch" {
		return nil
	}
	m := runIDInTitle.FindStringSubmatch(wr.GetDisplayTitle())
	if m == nil {
		return nil
	}
	run, err := h.Store.GetRun(ctx, m[1])
	if err != nil || run == nil || !run.Active() {
		return err
	}
	client, err := h.installationClient(githubapp.GetInstallationIDFromEvent(&ev))
	if err != nil {
		return err
	}
	if wr.GetConclusion() == "success" {
		return h.setStatus(ctx, client, run, StateDone, fmt.Sprintf("done: [workflow run](%s).", wr.GetHTMLURL()))
	}
	run.Error = "workflow run " + wr.GetConclusion()
	return h.setStatus(ctx, client, run, StateFailed, fmt.Sprintf("failed: the [workflow run](%s) ended %s.", wr.GetHTMLURL(), wr.GetConclusion()))
}
