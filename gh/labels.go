package gh

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-github/v62/github"
)

// AddLabels adds labels to an issue or pull request; GitHub creates a
// label on first use.
func (c *Client) AddLabels(ctx context.Context, owner, name string, number int, labels ...string) error {
	if len(labels) == 0 {
		return nil
	}
	if _, _, err := c.gh.Issues.AddLabelsToIssue(ctx, owner, name, number, labels); err != nil {
		return fmt.Errorf("label #%d in %s/%s with %v: %w", number, owner, name, labels, err)
	}
	return nil
}

// LabelExists reports whether the repository has a label of that name.
func (c *Client) LabelExists(ctx context.Context, owner, name, label string) (bool, error) {
	if _, _, err := c.gh.Issues.GetLabel(ctx, owner, name, label); err != nil {
		if httpStatus(err) == http.StatusNotFound {
			return false, nil
		}
		return false, fmt.Errorf("read the label %s of %s/%s: %w", label, owner, name, err)
	}
	return true, nil
}

// RemoveLabel takes a label off an issue or pull request. A label that is
// not there (404) is already gone, which is no error.
func (c *Client) RemoveLabel(ctx context.Context, owner, name string, number int, label string) error {
	if _, err := c.gh.Issues.RemoveLabelForIssue(ctx, owner, name, number, label); err != nil {
		if httpStatus(err) == http.StatusNotFound {
			return nil
		}
		return fmt.Errorf("remove label %q from #%d in %s/%s: %w", label, number, owner, name, err)
	}
	return nil
}

// IssueSummary is an issue or pull request in a list.
type IssueSummary struct {
	Number        int
	Title         string // sanitized
	Labels        []string
	IsPullRequest bool
	CreatedAt     time.Time
	Author        string
}

// ListOpenIssues lists the open issues (pull requests included, as GitHub
// lists them) carrying all of labels, oldest first, all pages.
func (c *Client) ListOpenIssues(ctx context.Context, owner, name string, labels []string) ([]*IssueSummary, error) {
	opts := &github.IssueListByRepoOptions{
		State: "open", Labels: labels, Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: 100},
	}
	var out []*IssueSummary
	for {
		list, resp, err := c.gh.Issues.ListByRepo(ctx, owner, name, opts)
		if err != nil {
			return nil, fmt.Errorf("list open issues of %s/%s: %w", owner, name, err)
		}
		for _, is := range list {
			s := &IssueSummary{
				Number:        is.GetNumber(),
				Title:         Sanitize(is.GetTitle()),
				IsPullRequest: is.IsPullRequest(),
				CreatedAt:     is.GetCreatedAt().Time,
				Author:        is.GetUser().GetLogin(),
			}
			for _, l := range is.Labels {
				s.Labels = append(s.Labels, l.GetName())
			}
			out = append(out, s)
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// AddReaction reacts to an issue comment with content: "+1", "-1",
// "laugh", "confused", "heart", "hooray", "rocket" or "eyes".
func (c *Client) AddReaction(ctx context.Context, owner, name string, commentID int64, content string) error {
	if _, _, err := c.gh.Reactions.CreateIssueCommentReaction(ctx, owner, name, commentID, content); err != nil {
		return fmt.Errorf("react %q to comment %d in %s/%s: %w", content, commentID, owner, name, err)
	}
	return nil
}

// AddIssueReaction reacts to an issue or pull request itself.
func (c *Client) AddIssueReaction(ctx context.Context, owner, name string, number int, content string) error {
	if _, _, err := c.gh.Reactions.CreateIssueReaction(ctx, owner, name, number, content); err != nil {
		return fmt.Errorf("react %q to #%d in %s/%s: %w", content, number, owner, name, err)
	}
	return nil
}

// ListComments lists the comments of an issue or pull request, oldest
// first, all pages, with their bodies as written (not sanitized: for
// finding core's own comments and commands, not for a model to read).
func (c *Client) ListComments(ctx context.Context, owner, name string, number int) ([]Comment, error) {
	return c.ListCommentsSince(ctx, owner, name, number, time.Time{})
}

// ListCommentsSince is ListComments for the comments updated at or after
// since (all of them for the zero time): what a running job reads between
// turns, one request while there are few.
func (c *Client) ListCommentsSince(ctx context.Context, owner, name string, number int, since time.Time) ([]Comment, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	if !since.IsZero() {
		opts.Since = &since
	}
	var out []Comment
	for {
		cs, resp, err := c.gh.Issues.ListComments(ctx, owner, name, number, opts)
		if err != nil {
			return nil, fmt.Errorf("list comments of #%d in %s/%s: %w", number, owner, name, err)
		}
		for _, cm := range cs {
			out = append(out, Comment{
				ID:        cm.GetID(),
				Author:    cm.GetUser().GetLogin(),
				AuthorID:  cm.GetUser().GetID(),
				Body:      cm.GetBody(),
				CreatedAt: cm.GetCreatedAt().Time,
				UpdatedAt: cm.GetUpdatedAt().Time,
			})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
