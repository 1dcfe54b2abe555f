package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/coreagent/core/status"
)

// PullRequest handles the core:fix label on a pull request (a resolve
// run), the core:review label (a review run), and a pull request opened from a core-session/ branch
// (status.BranchPrefix): the link back to the run that asked for it.
type PullRequest struct {
	*Base
}

var _ githubapp.EventHandler = (*PullRequest)(nil)

// Handles lists the events this handler takes.
func (h *PullRequest) Handles() []string { return []string{"pull_request"} }

// Handle handles one pull_request delivery.
func (h *PullRequest) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev github.PullRequestEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse pull_request event: %w", err)
	}
	switch {
	case ev.GetAction() == "labeled" && ev.GetLabel().GetName() == status.FixLabel:
		req, ok, err := h.newRequest(ctx, deliveryID, &ev, ev.GetRepo(), ev.GetNumber(), true, ev.GetSender())
		if !ok {
			return err
		}
		return h.start(ctx, req)
	case ev.GetAction() == "labeled" && ev.GetLabel().GetName() == status.ReviewLabel:
		req, ok, err := h.newRequest(ctx, deliveryID, &ev, ev.GetRepo(), ev.GetNumber(), true, ev.GetSender())
		if !ok {
			return err
		}
		return reviewCommand{}.run(ctx, h.Base, req)
	case ev.GetAction() == "opened" && strings.HasPrefix(ev.GetPullRequest().GetHead().GetRef(), status.BranchPrefix):
		return h.linkBack(ctx, &ev)
	}
	return nil
}

// linkBack finds the run whose session opened the pull request (its body
// carries the issue marker) and adds the link to its status comment.
func (h *PullRequest) linkBack(ctx context.Context, ev *github.PullRequestEvent) error {
	body := ev.GetPullRequest().GetBody()
	repo := ev.GetRepo().GetFullName()
	var run *Run
	var err error
	if n := status.IssueIn(body); n != 0 {
		run, err = h.Store.ActiveRun(ctx, repo, n)
	}
	if err != nil || run == nil {
		return err
	}
	client, err := h.installationClient(githubapp.GetInstallationIDFromEvent(ev))
	if err != nil {
		return err
	}
	run.PRURL = ev.GetPullRequest().GetHTMLURL()
	run.Branch = ev.GetPullRequest().GetHead().GetRef()
	zerolog.Ctx(ctx).Info().Str(logKeyRun, run.ID).Str("pr", run.PRURL).Msg("Linked a pull request to its run")
	return h.addNote(ctx, client, run, StateDone, "pull request: "+run.PRURL)
}
