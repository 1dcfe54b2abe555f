package gh

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// MarkReadyQuery is the GraphQL mutation MarkReadyForReview sends: the
// REST API cannot take a pull request out of draft.
const MarkReadyQuery = `mutation($id: ID!) {
  markPullRequestReadyForReview(input: {pullRequestId: $id}) {
    pullRequest { number isDraft }
  }
}`

type markReadyAnswer struct {
	Data struct {
		MarkPullRequestReadyForReview *struct {
			PullRequest struct {
				Number  int  `json:"number"`
				IsDraft bool `json:"isDraft"`
			} `json:"pullRequest"`
		} `json:"markPullRequestReadyForReview"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// MarkReadyForReview takes the draft pull request with GraphQL id nodeID
// out of draft.
func (c *Client) MarkReadyForReview(ctx context.Context, nodeID string) error {
	if nodeID == "" {
		return errors.New("mark ready for review: the pull request has no node id")
	}
	req, err := c.gh.NewRequest("POST", c.graphQLURL(), map[string]any{"query": MarkReadyQuery, "variables": map[string]any{"id": nodeID}})
	if err != nil {
		return fmt.Errorf("mark ready for review: %w", err)
	}
	var ans markReadyAnswer
	if _, err := c.gh.Do(ctx, req, &ans); err != nil {
		return fmt.Errorf("mark ready for review: %w", err)
	}
	if len(ans.Errors) > 0 {
		msgs := make([]string, len(ans.Errors))
		for i, e := range ans.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("mark ready for review: GraphQL: %s", strings.Join(msgs, "; "))
	}
	if m := ans.Data.MarkPullRequestReadyForReview; m == nil || m.PullRequest.IsDraft {
		return errors.New("mark ready for review: GitHub left the pull request a draft")
	}
	return nil
}
