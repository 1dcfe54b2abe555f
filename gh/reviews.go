package gh

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// ReviewThreadsQuery is the GraphQL query UnresolvedReviewThreads sends: one
// page of a pull request's review threads, with the first 50 comments of
// each. Variables: owner, name, number and cursor (null for the first page).
const ReviewThreadsQuery = `query ReviewThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          isResolved
          isOutdated
          path
          line
          comments(first: 50) {
            nodes { author { login } body createdAt url }
          }
        }
      }
    }
  }
}`

// ReviewThread is an open conversation on lines of a pull request's diff.
type ReviewThread struct {
	Path     string
	Line     int // 0 when GitHub has no line for it
	Comments []ReviewComment
}

// ReviewComment is one comment of a review thread, its body sanitized.
type ReviewComment struct {
	Author    string
	Body      string
	URL       string
	CreatedAt time.Time
}

type threadsAnswer struct {
	Data struct {
		Repository *struct {
			PullRequest *struct {
				ReviewThreads struct {
					PageInfo struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
					Nodes []struct {
						IsResolved bool   `json:"isResolved"`
						IsOutdated bool   `json:"isOutdated"`
						Path       string `json:"path"`
						Line       *int   `json:"line"`
						Comments   struct {
							Nodes []struct {
								Author *struct {
									Login string `json:"login"`
								} `json:"author"`
								Body      string    `json:"body"`
								CreatedAt time.Time `json:"createdAt"`
								URL       string    `json:"url"`
							} `json:"nodes"`
						} `json:"comments"`
					} `json:"nodes"`
				} `json:"reviewThreads"`
			} `json:"pullRequest"`
		} `json:"repository"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// UnresolvedReviewThreads lists the review threads of pull request number
// that are neither resolved nor outdated, all pages, through GraphQL (the
// REST API does not say whether a thread is resolved).
func (c *Client) UnresolvedReviewThreads(ctx context.Context, owner, name string, number int) ([]ReviewThread, error) {
	endpoint := c.graphQLURL()
	vars := map[string]any{"owner": owner, "name": name, "number": number, "cursor": nil}
	var out []ReviewThread
	for {
		req, err := c.gh.NewRequest("POST", endpoint, map[string]any{"query": ReviewThreadsQuery, "variables": vars})
		if err != nil {
			return nil, fmt.Errorf("review threads of #%d in %s/%s: %w", number, owner, name, err)
		}
		var ans threadsAnswer
		if _, err := c.gh.Do(ctx, req, &ans); err != nil {
			return nil, fmt.Errorf("review threads of #%d in %s/%s: %w", number, owner, name, err)
		}
		if len(ans.Errors) > 0 {
			msgs := make([]string, len(ans.Errors))
			for i, e := range ans.Errors {
				msgs[i] = e.Message
			}
			return nil, fmt.Errorf("review threads of #%d in %s/%s: GraphQL: %s", number, owner, name, strings.Join(msgs, "; "))
		}
		repo := ans.Data.Repository
		if repo == nil || repo.PullRequest == nil {
			return nil, fmt.Errorf("review threads of #%d in %s/%s: %w", number, owner, name,
				errors.New("the answer holds no pull request"))
		}
		threads := repo.PullRequest.ReviewThreads
		for _, th := range threads.Nodes {
			if th.IsResolved || th.IsOutdated {
				continue
			}
			rt := ReviewThread{Path: th.Path}
			if th.Line != nil {
				rt.Line = *th.Line
			}
			for _, cm := range th.Comments.Nodes {
				author := "ghost" // GitHub's name for a deleted account
				if cm.Author != nil {
					author = cm.Author.Login
				}
				rt.Comments = append(rt.Comments, ReviewComment{
					Author: author, Body: Sanitize(cm.Body), URL: cm.URL, CreatedAt: cm.CreatedAt,
				})
			}
			out = append(out, rt)
		}
		if !threads.PageInfo.HasNextPage || threads.PageInfo.EndCursor == "" {
			return out, nil
		}
		vars["cursor"] = threads.PageInfo.EndCursor
	}
}

// graphQLURL is the GraphQL endpoint of the client's GitHub:
// https://api.github.com/graphql for github.com, https://HOST/api/graphql
// for an Enterprise Server.
func (c *Client) graphQLURL() string {
	base := c.gh.BaseURL
	path := "/graphql"
	if prefix, ok := strings.CutSuffix(base.Path, "/api/v3/"); ok {
		path = prefix + "/api/graphql"
	}
	return (&url.URL{Scheme: base.Scheme, Host: base.Host, Path: path}).String()
}
