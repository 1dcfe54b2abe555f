package bot

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/coreagent/core/status"
)

// WorkflowRun handles a dispatched workflow run: its run-name carries the
// bot's run id (status.RunNameTemplate). The first delivery that names it
// records its address (the console links it); at its end the run is
// closed and, when the workflow failed, its status comment gets a note
// saying so. What the Action wrote stays.
type WorkflowRun struct {
	*Base
}

var _ githubapp.EventHandler = (*WorkflowRun)(nil)

// Handles lists the events this handler takes.
func (h *WorkflowRun) Handles() []string { return []string{"workflow_run"} }

// Handle handles one workflow_run delivery.
func (h *WorkflowRun) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev github.WorkflowRunEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse workflow_run event: %w", err)
	}
	wr := ev.GetWorkflowRun()
	if wr.GetEvent() != "workflow_dispatch" {
		return nil
	}
	id := status.RunIDInName(wr.GetDisplayTitle())
	if id == "" {
		return nil
	}
	run, err := h.Store.GetRun(ctx, id)
	if err != nil || run == nil {
		return err
	}
	if run.WorkflowURL == "" && wr.GetHTMLURL() != "" {
		run.WorkflowURL = wr.GetHTMLURL()
		if err := h.Store.UpdateRun(ctx, run); err != nil {
			return err
		}
	}
	if ev.GetAction() != "completed" || !run.Active() {
		return nil
	}
	client, err := h.installationClient(githubapp.GetInstallationIDFromEvent(&ev))
	if err != nil {
		return err
	}
	if err := h.recordCost(ctx, client, run); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Str(logKeyRun, run.ID).Msg("Could not read the run's cost")
	}
	if wr.GetConclusion() == "success" {
		return h.save(ctx, run, StateDone) // the Action said how it went
	}
	run.Error = "workflow run " + wr.GetConclusion()
	return h.addNote(ctx, client, run, StateFailed, fmt.Sprintf("failed: the [workflow run](%s) ended %s.", wr.GetHTMLURL(), wr.GetConclusion()))
}
