package bot

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
)

// FixLabel is the label that asks for a fix like /core fix does.
const FixLabel = "core:fix"

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
	if ev.GetAction() != "labeled" || ev.GetLabel().GetName() != FixLabel {
		return nil
	}
	if seen, err := h.seen(ctx, deliveryID); err != nil || seen {
		return err
	}
	client, err := h.installationClient(githubapp.GetInstallationIDFromEvent(&ev))
	if err != nil {
		return err
	}
	return h.start(ctx, &request{
		client: client, owner: ev.GetRepo().GetOwner().GetLogin(), repo: ev.GetRepo().GetName(),
		number: ev.GetIssue().GetNumber(), isPull: ev.GetIssue().IsPullRequest(), actor: ev.GetSender(),
		deliveryID: deliveryID, installationID: githubapp.GetInstallationIDFromEvent(&ev), defaultBranch: ev.GetRepo().GetDefaultBranch(),
	})
}
