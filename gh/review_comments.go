package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// PullComment is a review comment on a pull request's diff, as core reads
// it back: its author, where it sits (Line 0 once GitHub no longer places
// it), the commit it was made on, and its body.
type PullComment struct {
	ID       int64
	User     string
	Path     string
	Line     int
	CommitID string
	Body     string
}

// ErrCommentNotEditable: the review comment cannot be changed with this
// token (it is someone else's, or gone).
var ErrCommentNotEditable = errors.New("the review comment is not core's to change, or is gone")

// ReviewComments lists the review comments of pull request number, every
// thread's, oldest first, all pages.
func (c *Client) ReviewComments(ctx context.Context, owner, name string, number int) ([]PullComment, error) {
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var out []PullComment
	for {
		cs, resp, err := c.gh.PullRequests.ListComments(ctx, owner, name, number, opts)
		if err != nil {
			return nil, fmt.Errorf("list the review comments of pull request #%d of %s/%s: %w", number, owner, name, err)
		}
		for _, cm := range cs {
			commit := cm.GetOriginalCommitID()
			if commit == "" {
				commit = cm.GetCommitID()
			}
			out = append(out, PullComment{ID: cm.GetID(), User: cm.GetUser().GetLogin(), Path: cm.GetPath(),
				Line: cm.GetLine(), CommitID: commit, Body: cm.GetBody()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// CreateReviewComment puts d on pull request number, outside any review,
// as a comment on the head commit's version (side RIGHT). A line the
// diff does not show is refused by GitHub (422).
func (c *Client) CreateReviewComment(ctx context.Context, owner, name string, number int, commit string, d DraftComment) (PullComment, error) {
	in := &github.PullRequestComment{CommitID: &commit, Path: &d.Path, Body: &d.Body, Line: &d.Line, Side: github.String("RIGHT")}
	if d.StartLine != 0 && d.StartLine < d.Line {
		in.StartLine, in.StartSide = &d.StartLine, github.String("RIGHT")
	}
	cm, _, err := c.gh.PullRequests.CreateComment(ctx, owner, name, number, in)
	if err != nil {
		return PullComment{}, fmt.Errorf("comment on %s:%d of pull request #%d of %s/%s: %w", d.Path, d.Line, number, owner, name, err)
	}
	return PullComment{ID: cm.GetID(), User: cm.GetUser().GetLogin(), Path: cm.GetPath(), Line: cm.GetLine(), CommitID: commit, Body: cm.GetBody()}, nil
}

// EditReviewComment replaces the body of review comment id. One this
// token may not change, or that is gone, is ErrCommentNotEditable.
func (c *Client) EditReviewComment(ctx context.Context, owner, name string, id int64, body string) error {
	_, _, err := c.gh.PullRequests.EditComment(ctx, owner, name, id, &github.PullRequestComment{Body: &body})
	return commentError("edit", owner, name, id, err)
}

// DeleteReviewComment deletes review comment id. One this token may not
// delete, or that is gone, is ErrCommentNotEditable.
func (c *Client) DeleteReviewComment(ctx context.Context, owner, name string, id int64) error {
	_, err := c.gh.PullRequests.DeleteComment(ctx, owner, name, id)
	return commentError("delete", owner, name, id, err)
}

// commentError wraps err of a change to review comment id, making a 403
// or 404 an ErrCommentNotEditable.
func commentError(what, owner, name string, id int64, err error) error {
	if err == nil {
		return nil
	}
	if s := httpStatus(err); s == http.StatusForbidden || s == http.StatusNotFound {
		err = fmt.Errorf("%w: %w", ErrCommentNotEditable, err)
	}
	return fmt.Errorf("%s review comment %d of %s/%s: %w", what, id, owner, name, err)
}
