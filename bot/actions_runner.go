package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/status"
)

// ActionsRunner dispatches each run to the repository's core workflow
// (workflow_dispatch): GitHub Actions is the distributed engine, the bot
// only decides, records and links back.
type ActionsRunner struct {
	Base *Base
}

var _ Runner = (*ActionsRunner)(nil)

// Start dispatches the workflow with the run's inputs. A repository without
// the workflow gets a status that says how to add it.
func (a *ActionsRunner) Start(ctx context.Context, client *gh.Client, run *Run, defaultBranch string) error {
	owner, repo, _ := strings.Cut(run.Repo, "/")
	number := strconv.Itoa(run.Number)
	inputs := map[string]any{
		"mode":              run.Kind,
		"instruction":       run.Instruction,
		"run_id":            run.ID,
		"status_comment_id": strconv.FormatInt(run.StatusCommentID, 10),
		// The job takes this person's /core comments (and refuses
		// everyone else's) while it works and while it waits, idle.
		"actor": run.Actor,
	}
	if run.Kind == KindResolve || run.Kind == KindReview {
		inputs["pull_request"] = number
	} else {
		inputs["issue"] = number
	}
	wf := a.Base.Config.Workflow
	resp, err := client.GitHub().Actions.CreateWorkflowDispatchEventByFileName(ctx, owner, repo, wf, github.CreateWorkflowDispatchEventRequest{Ref: defaultBranch, Inputs: inputs})
	if err != nil {
		status := 0
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil {
			status = er.Response.StatusCode
		} else if resp != nil {
			status = resp.StatusCode
		}
		run.Error = err.Error()
		text := fmt.Sprintf("failed: the workflow %s could not be dispatched: %v", wf, err)
		if status == http.StatusNotFound || status == http.StatusUnprocessableEntity {
			text = fmt.Sprintf("failed: this repository has no workflow `.github/workflows/%s` with a `workflow_dispatch` trigger on %s. Add core's workflow (see core's docs/bot.md) and ask again.", wf, defaultBranch)
		}
		return a.Base.setStatus(ctx, client, run, StateFailed, text)
	}
	return a.Base.setStatus(ctx, client, run, StateRunning, fmt.Sprintf("%s on GitHub Actions (workflow %s).", state.Active.Word(), wf))
}

// Stop cancels the dispatched workflow run, once the Action has named it in
// the status comment, and marks the run stopped. A run whose workflow has
// not started yet is only marked stopped.
func (a *ActionsRunner) Stop(ctx context.Context, client *gh.Client, run *Run) error {
	owner, repo, _ := strings.Cut(run.Repo, "/")
	text := "stopped."
	if run.StatusCommentID != 0 {
		c, err := client.GetComment(ctx, owner, repo, run.StatusCommentID)
		if err != nil {
			return err
		}
		if id := status.WorkflowRunIn(c.Body); id != 0 {
			if err := client.CancelWorkflowRun(ctx, owner, repo, id); err != nil {
				return err
			}
			text = fmt.Sprintf("stopped: workflow run %d cancelled.", id)
		}
	}
	return a.Base.setStatus(ctx, client, run, StateCancelled, text)
}
