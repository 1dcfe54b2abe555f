package gh

import (
	"context"
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

// ConvertToDraftQuery is the GraphQL mutation ConvertToDraft sends.
const ConvertToDraftQuery = `mutation($id: ID!) {
  convertPullRequestToDraft(input: {pullRequestId: $id}) {
    pullRequest { number isDraft }
  }
}`

type draftPayload struct {
	PullRequest struct {
		Number  int  `json:"number"`
		IsDraft bool `json:"isDraft"`
	} `json:"pullRequest"`
}

type draftAnswer struct {
	Data   map[string]*draftPayload `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// MarkReadyForReview takes the draft pull request with GraphQL id nodeID
// out of draft.
func (c *Client) MarkReadyForReview(ctx context.Context, nodeID string) error {
	return c.setDraft(ctx, "mark ready for review", MarkReadyQuery, "markPullRequestReadyForReview", nodeID, false)
}

// ConvertToDraft makes the pull request with GraphQL id nodeID a draft
// again.
func (c *Client) ConvertToDraft(ctx context.Context, nodeID string) error {
	return c.setDraft(ctx, "convert to draft", ConvertToDraftQuery, "convertPullRequestToDraft", nodeID, true)
}

func (c *Client) setDraft(ctx context.Context, what, query, field, nodeID string, draft bool) error {
	if nodeID == "" {
		return fmt.Errorf("%s: the pull request has no node id", what)
	}
	req, err := c.gh.NewRequest("POST", c.graphQLURL(), map[string]any{"query": query, "variables": map[string]any{"id": nodeID}})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	var ans draftAnswer
	if _, err := c.gh.Do(ctx, req, &ans); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(ans.Errors) > 0 {
		msgs := make([]string, len(ans.Errors))
		for i, e := range ans.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("%s: GraphQL: %s", what, strings.Join(msgs, "; "))
	}
	if p := ans.Data[field]; p == nil || p.PullRequest.IsDraft != draft {
		return fmt.Errorf("%s: GitHub did not change the pull request", what)
	}
	return nil
}
