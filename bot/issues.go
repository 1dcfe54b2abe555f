package bot

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"

	"github.com/coreagent/core/status"
)

// Issues handles the core:fix label on an issue.
type Issues struct {
	*Base
}

var _ githubapp.EventHandler = (*Issues)(nil)

// Handles lists the events this handler takes.
func (h *Issues) Handles() []string { return []string{"issues"} }

// Handle handles one issues delivery.
func (h *Issues) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev github.IssuesEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse issues event: %w", err)
	}
	if ev.GetAction() != "labeled" || ev.GetLabel().GetName() != status.FixLabel {
		return nil
	}
	req, ok, err := h.newRequest(ctx, deliveryID, &ev, ev.GetRepo(), ev.GetIssue().GetNumber(), ev.GetIssue().IsPullRequest(), ev.GetSender())
	if !ok {
		return err
	}
	return h.start(ctx, req)
}
