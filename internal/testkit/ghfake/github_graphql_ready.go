package ghfake

import (
	"fmt"
	"net/http"
)

// The markPullRequestReadyForReview and convertPullRequestToDraft
// mutations: their pull request is the variable id (a pull request's
// node_id), as in
//
//	mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { number isDraft } } }
//
// The answer holds the pull request's number, isDraft, url and state,
// whatever the selection.

type gqlReadyPull struct {
	Number  int    `json:"number"`
	IsDraft bool   `json:"isDraft"`
	URL     string `json:"url"`
	State   string `json:"state"`
}

type gqlReadyPayload struct {
	PullRequest gqlReadyPull `json:"pullRequest"`
}

// setDraft answers mutation, which makes the pull request id a draft or
// not.
func (g *GitHub) setDraft(c *apiCall, mutation, id string, draft bool) {
	fail := func(kind, msg string) {
		c.json(http.StatusOK, gqlAnswer{
			Data:   map[string]any{mutation: nil},
			Errors: []gqlError{{Type: kind, Path: []string{mutation}, Message: msg}},
		})
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.repos {
		for n, is := range r.issues {
			if is.pull == nil || nodeID("PR", is.id) != id {
				continue
			}
			if r.rankLocked(c.login) < permWrite && is.User != c.login {
				fail("FORBIDDEN", "Resource not accessible by integration")
				return
			}
			if is.State != "open" {
				fail("UNPROCESSABLE", "Pull request is closed")
				return
			}
			is.pull.draft = draft
			c.json(http.StatusOK, gqlAnswer{Data: map[string]gqlReadyPayload{
				mutation: {PullRequest: gqlReadyPull{
					Number: n, IsDraft: draft, URL: fmt.Sprintf("%s/pull/%d", r.HTMLURL(), n), State: "OPEN",
				}},
			}})
			return
		}
	}
	fail("NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id))
}
