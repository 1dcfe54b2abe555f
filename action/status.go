package action

import (
	"context"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/status"
)

// statusComment is the comment that tells the person who asked how the run
// goes. The Action writes its headline; what the bot added (notes) stays.
type statusComment struct {
	client      *gh.Client
	owner, repo string
	number      int
	runID       string
	id          int64 // the comment, once posted (or the bot's)
	runURL      string
	workflowRun int64  // this workflow run, so /core stop can cancel it
	cost        string // what the run cost, once it ended and is known
}

// post creates the status comment, or edits the one the bot or a previous
// attempt of this run left, keeping its notes.
func (s *statusComment) post(ctx context.Context, text string) error {
	if s.id == 0 {
		found, err := status.Find(ctx, s.client, s.owner, s.repo, s.number, s.runID)
		if err != nil {
			return err
		}
		if found != nil {
			s.id = found.ID
		}
	}
	if s.id != 0 {
		return status.Update(ctx, s.client, s.owner, s.repo, s.id, s.runID, func(c *status.Comment) {
			c.Text, c.RunURL, c.WorkflowRun, c.Cost = text, s.runURL, s.workflowRun, s.cost
		})
	}
	body := status.Comment{RunID: s.runID, Text: text, RunURL: s.runURL, WorkflowRun: s.workflowRun, Cost: s.cost}.Body()
	id, _, err := s.client.CreateComment(ctx, s.owner, s.repo, s.number, body)
	s.id = id
	return err
}
