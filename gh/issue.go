package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// Issue is an issue (or a pull request's conversation) as the goal of a
// session.
type Issue struct {
	Number        int
	Title         string
	Body          string
	Author        string
	HTMLURL       string
	IsPullRequest bool
	Comments      []Comment
}

// Comment is one comment of an issue.
type Comment struct {
	ID     int64
	Author string
	// AuthorID is the author's account id (0 when unknown), which stays
	// when the login is renamed and is never another account's.
	AuthorID  int64
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Issue fetches an issue with its comments, sanitized. Comments created or
// edited after before are left out: they are not what the session was asked.
func (c *Client) Issue(ctx context.Context, owner, name string, number int, before time.Time) (*Issue, error) {
	is, _, err := c.gh.Issues.Get(ctx, owner, name, number)
	if err != nil {
		if httpStatus(err) == http.StatusNotFound {
			return nil, fmt.Errorf("issue #%d not found in %s/%s", number, owner, name)
		}
		return nil, fmt.Errorf("get issue #%d of %s/%s: %w", number, owner, name, err)
	}
	out := &Issue{
		Number:        is.GetNumber(),
		Title:         Sanitize(is.GetTitle()),
		Body:          Sanitize(is.GetBody()),
		Author:        is.GetUser().GetLogin(),
		HTMLURL:       is.GetHTMLURL(),
		IsPullRequest: is.IsPullRequest(),
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := c.gh.Issues.ListComments(ctx, owner, name, number, opts)
		if err != nil {
			return nil, fmt.Errorf("list comments of #%d in %s/%s: %w", number, owner, name, err)
		}
		for _, cm := range cs {
			if !before.IsZero() && (cm.GetCreatedAt().After(before) || cm.GetUpdatedAt().After(before)) {
				continue
			}
			out.Comments = append(out.Comments, Comment{
				ID:        cm.GetID(),
				Author:    cm.GetUser().GetLogin(),
				AuthorID:  cm.GetUser().GetID(),
				Body:      Sanitize(cm.GetBody()),
				CreatedAt: cm.GetCreatedAt().Time,
				UpdatedAt: cm.GetUpdatedAt().Time,
			})
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

// Instruction renders an issue as the goal of a session.
func (is *Issue) Instruction() string {
	var b strings.Builder
	kind := "Issue"
	if is.IsPullRequest {
		kind = "Pull request"
	}
	fmt.Fprintf(&b, "%s #%d: %s\n", kind, is.Number, strings.TrimSpace(is.Title))
	if body := strings.TrimSpace(is.Body); body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	for _, c := range is.Comments {
		body := strings.TrimSpace(c.Body)
		if body == "" {
			continue
		}
		fmt.Fprintf(&b, "\nComment by @%s:\n%s\n", c.Author, body)
	}
	return strings.TrimRight(b.String(), "\n")
}

// FileIssue opens an issue and returns its URL.
func (c *Client) FileIssue(ctx context.Context, owner, name, title, body string) (string, error) {
	is, _, err := c.gh.Issues.Create(ctx, owner, name, &github.IssueRequest{Title: &title, Body: &body})
	if err != nil {
		return "", fmt.Errorf("file an issue in %s/%s: %w", owner, name, err)
	}
	return is.GetHTMLURL(), nil
}

// CreateComment comments on an issue or pull request and returns the
// comment's id and URL.
func (c *Client) CreateComment(ctx context.Context, owner, name string, number int, body string) (int64, string, error) {
	cm, _, err := c.gh.Issues.CreateComment(ctx, owner, name, number, &github.IssueComment{Body: &body})
	if err != nil {
		return 0, "", fmt.Errorf("comment on #%d in %s/%s: %w", number, owner, name, err)
	}
	return cm.GetID(), cm.GetHTMLURL(), nil
}

// EditComment replaces a comment's body.
func (c *Client) EditComment(ctx context.Context, owner, name string, id int64, body string) error {
	if _, _, err := c.gh.Issues.EditComment(ctx, owner, name, id, &github.IssueComment{Body: &body}); err != nil {
		return fmt.Errorf("edit comment %d in %s/%s: %w", id, owner, name, err)
	}
	return nil
}

// GetComment fetches one issue or pull request comment, unsanitized.
func (c *Client) GetComment(ctx context.Context, owner, name string, id int64) (Comment, error) {
	cm, _, err := c.gh.Issues.GetComment(ctx, owner, name, id)
	if err != nil {
		return Comment{}, fmt.Errorf("get comment %d in %s/%s: %w", id, owner, name, err)
	}
	return Comment{ID: cm.GetID(), Author: cm.GetUser().GetLogin(), AuthorID: cm.GetUser().GetID(), Body: cm.GetBody(), CreatedAt: cm.GetCreatedAt().Time, UpdatedAt: cm.GetUpdatedAt().Time}, nil
}

// CancelWorkflowRun cancels a GitHub Actions workflow run.
func (c *Client) CancelWorkflowRun(ctx context.Context, owner, name string, runID int64) error {
	_, err := c.gh.Actions.CancelWorkflowRunByID(ctx, owner, name, runID)
	var accepted *github.AcceptedError
	if err != nil && !errors.As(err, &accepted) {
		return fmt.Errorf("cancel workflow run %d in %s/%s: %w", runID, owner, name, err)
	}
	return nil
}
