package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
)

// statusMarker marks the status comment of one run, so a re-run edits its
// own comment instead of posting another.
func statusMarker(runID string) string { return fmt.Sprintf("<!-- core:status:%s -->", runID) }

// status is the comment that tells the person who asked how the run goes.
type status struct {
	client      *gh.Client
	owner, repo string
	number      int
	runID       string
	id          int64 // the comment, once posted
	runURL      string
	workflowRun int64 // this workflow run, so /core stop can cancel it
}

// post creates the status comment, or edits the one a previous attempt of
// this run left.
func (s *status) post(ctx context.Context, text string) error {
	body := text + "\n\n" + s.footer()
	if s.id == 0 {
		comments, err := s.client.ListComments(ctx, s.owner, s.repo, s.number)
		if err != nil {
			return err
		}
		for _, c := range comments {
			if strings.Contains(c.Body, statusMarker(s.runID)) {
				s.id = c.ID
			}
		}
	}
	if s.id != 0 {
		return s.client.EditComment(ctx, s.owner, s.repo, s.id, body)
	}
	id, _, err := s.client.CreateComment(ctx, s.owner, s.repo, s.number, body)
	s.id = id
	return err
}

func (s *status) footer() string {
	f := statusMarker(s.runID)
	if s.workflowRun != 0 {
		f += "\n" + gh.WorkflowRunMarker(s.workflowRun)
	}
	if s.runURL != "" {
		f = fmt.Sprintf("<sub>[workflow run](%s)</sub>\n%s", s.runURL, f)
	}
	return f
}
