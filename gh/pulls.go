package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"
)

// PullRequest is what core needs of a pull request.
type PullRequest struct {
	Number int
	// NodeID is the pull request's GraphQL id.
	NodeID       string
	Title        string
	Body         string
	HTMLURL      string
	Draft        bool
	State        string
	Merged       bool
	Author       string
	HeadRef      string
	HeadSHA      string
	HeadRepo     string // full name; differs from the base repository for a fork
	HeadCloneURL string
	BaseRef      string
}

// Fork reports whether the pull request's head lives in another repository
// than owner/name.
func (p *PullRequest) Fork(owner, name string) bool {
	return !strings.EqualFold(p.HeadRepo, owner+"/"+name)
}

func pullFrom(p *github.PullRequest) *PullRequest {
	return &PullRequest{
		Number:       p.GetNumber(),
		NodeID:       p.GetNodeID(),
		Title:        p.GetTitle(),
		Body:         p.GetBody(),
		HTMLURL:      p.GetHTMLURL(),
		Draft:        p.GetDraft(),
		State:        p.GetState(),
		Merged:       p.GetMerged(),
		Author:       p.GetUser().GetLogin(),
		HeadRef:      p.GetHead().GetRef(),
		HeadSHA:      p.GetHead().GetSHA(),
		HeadRepo:     p.GetHead().GetRepo().GetFullName(),
		HeadCloneURL: p.GetHead().GetRepo().GetCloneURL(),
		BaseRef:      p.GetBase().GetRef(),
	}
}

// PullRequest fetches one pull request.
func (c *Client) PullRequest(ctx context.Context, owner, name string, number int) (*PullRequest, error) {
	p, _, err := c.gh.PullRequests.Get(ctx, owner, name, number)
	if err != nil {
		if httpStatus(err) == http.StatusNotFound {
			return nil, fmt.Errorf("pull request #%d not found in %s/%s", number, owner, name)
		}
		return nil, fmt.Errorf("get pull request #%d of %s/%s: %w", number, owner, name, err)
	}
	return pullFrom(p), nil
}

// OpenPullRequests lists the open pull requests, all pages.
func (c *Client) OpenPullRequests(ctx context.Context, owner, name string) ([]*PullRequest, error) {
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	var out []*PullRequest
	for {
		ps, resp, err := c.gh.PullRequests.List(ctx, owner, name, opts)
		if err != nil {
			return nil, fmt.Errorf("list pull requests of %s/%s: %w", owner, name, err)
		}
		for _, p := range ps {
			out = append(out, pullFrom(p))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// NewPullRequest is a pull request to open.
type NewPullRequest struct {
	Title, Body, Head, Base string
	Draft                   bool
}

// CreatePullRequest opens a pull request.
func (c *Client) CreatePullRequest(ctx context.Context, owner, name string, n NewPullRequest) (*PullRequest, error) {
	p, _, err := c.gh.PullRequests.Create(ctx, owner, name, &github.NewPullRequest{
		Title: &n.Title, Body: &n.Body, Head: &n.Head, Base: &n.Base, Draft: &n.Draft,
	})
	if err != nil {
		if actionsMayNotOpen(err) {
			return nil, &ActionsPullsError{Repo: owner + "/" + name, Err: err}
		}
		return nil, fmt.Errorf("create draft pull request for %s/%s: %w", owner, name, err)
	}
	return pullFrom(p), nil
}

// ActionsPullsError is GitHub's refusal to let GitHub Actions (the
// workflow's GITHUB_TOKEN) open a pull request: a repository setting,
// off by default for new repositories and organisations.
type ActionsPullsError struct {
	Repo string // owner/name
	Err  error
}

func (e *ActionsPullsError) Error() string {
	return "GitHub does not let GitHub Actions open pull requests in " + e.Repo +
		": turn on the repository's Settings → Actions → General → Workflow permissions → " +
		"\"Allow GitHub Actions to create and approve pull requests\" (an organisation's repository needs the organisation's " +
		"same setting on first), or give the Action a GitHub App's token (its github_token input)"
}

func (e *ActionsPullsError) Unwrap() error { return e.Err }

// actionsMayNotOpen reports whether err is GitHub's 403 to a workflow's
// token that may not create pull requests.
func actionsMayNotOpen(err error) bool {
	var ge *github.ErrorResponse
	return errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusForbidden &&
		strings.Contains(ge.Message, "not permitted to create or approve pull requests")
}

// EditPullRequestBody replaces a pull request's body.
func (c *Client) EditPullRequestBody(ctx context.Context, owner, name string, number int, body string) error {
	if _, _, err := c.gh.PullRequests.Edit(ctx, owner, name, number, &github.PullRequest{Body: &body}); err != nil {
		return fmt.Errorf("edit pull request #%d of %s/%s: %w", number, owner, name, err)
	}
	return nil
}

// EditPullRequest replaces a pull request's title and body.
func (c *Client) EditPullRequest(ctx context.Context, owner, name string, number int, title, body string) error {
	if _, _, err := c.gh.PullRequests.Edit(ctx, owner, name, number, &github.PullRequest{Title: &title, Body: &body}); err != nil {
		return fmt.Errorf("edit pull request #%d of %s/%s: %w", number, owner, name, err)
	}
	return nil
}
