package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// PullFile is a file a pull request changes, with its patch: the hunks
// GitHub shows (and takes review comments on), without the diff header.
type PullFile struct {
	Path string
	// Status is added, removed, modified, renamed, copied, changed or
	// unchanged.
	Status string
	Patch  string // empty for a binary file or one too large to show
}

// PullFiles lists the files pull request number changes, all pages (GitHub
// lists at most 3,000).
func (c *Client) PullFiles(ctx context.Context, owner, name string, number int) ([]PullFile, error) {
	opts := &github.ListOptions{PerPage: 100}
	var out []PullFile
	for {
		fs, resp, err := c.gh.PullRequests.ListFiles(ctx, owner, name, number, opts)
		if err != nil {
			return nil, fmt.Errorf("list the files of pull request #%d of %s/%s: %w", number, owner, name, err)
		}
		for _, f := range fs {
			out = append(out, PullFile{Path: f.GetFilename(), Status: f.GetStatus(), Patch: f.GetPatch()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// DraftComment is a review comment on lines of the head's version of a
// file (side RIGHT): Line, or StartLine through Line.
type DraftComment struct {
	Path            string
	StartLine, Line int // StartLine 0 for one line
	Body            string
}

// NewReview is a review to submit on a pull request: a COMMENT review of
// commit CommitID (the head it was made against) with a body and comments.
type NewReview struct {
	CommitID string
	Body     string
	Comments []DraftComment
}

// CreateReview submits a comment review on pull request number and returns
// its address.
func (c *Client) CreateReview(ctx context.Context, owner, name string, number int, r NewReview) (string, error) {
	_, url, err := c.SubmitReview(ctx, owner, name, number, r)
	return url, err
}

// SubmitReview submits a comment review on pull request number and returns
// it, as Reviews would list it (its User is this token's login), and its
// address.
func (c *Client) SubmitReview(ctx context.Context, owner, name string, number int, r NewReview) (Review, string, error) {
	req := &github.PullRequestReviewRequest{Body: &r.Body, Event: github.String("COMMENT")}
	if r.CommitID != "" {
		req.CommitID = &r.CommitID
	}
	for _, d := range r.Comments {
		dc := &github.DraftReviewComment{Path: github.String(d.Path), Body: github.String(d.Body), Line: github.Int(d.Line), Side: github.String("RIGHT")}
		if d.StartLine != 0 && d.StartLine < d.Line {
			dc.StartLine, dc.StartSide = github.Int(d.StartLine), github.String("RIGHT")
		}
		req.Comments = append(req.Comments, dc)
	}
	rv, _, err := c.gh.PullRequests.CreateReview(ctx, owner, name, number, req)
	if httpStatus(err) == http.StatusUnprocessableEntity && len(r.Comments) > 0 {
		err = fmt.Errorf("%w: %w", ErrLinesRefused, err)
	}
	if err != nil {
		return Review{}, "", fmt.Errorf("post a review on pull request #%d of %s/%s: %w", number, owner, name, err)
	}
	return reviewOf(rv), rv.GetHTMLURL(), nil
}

// ErrLinesRefused: GitHub refused a review with line comments (422),
// most often because a line is not in the diff at the review's commit:
// the pull request's head moved since the lines were read.
var ErrLinesRefused = errors.New("GitHub refused the review's line comments")

// Review is a submitted review of a pull request, as core reads it back.
type Review struct {
	ID       int64
	User     string
	CommitID string
	Body     string
	State    string // COMMENTED, APPROVED, CHANGES_REQUESTED, …
}

// Reviews lists the reviews of pull request number, oldest first, all
// pages.
func (c *Client) Reviews(ctx context.Context, owner, name string, number int) ([]Review, error) {
	opts := &github.ListOptions{PerPage: 100}
	var out []Review
	for {
		rs, resp, err := c.gh.PullRequests.ListReviews(ctx, owner, name, number, opts)
		if err != nil {
			return nil, fmt.Errorf("list the reviews of pull request #%d of %s/%s: %w", number, owner, name, err)
		}
		for _, r := range rs {
			out = append(out, reviewOf(r))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// reviewOf is r as core reads it.
func reviewOf(r *github.PullRequestReview) Review {
	return Review{ID: r.GetID(), User: r.GetUser().GetLogin(), CommitID: r.GetCommitID(), Body: r.GetBody(), State: r.GetState()}
}

// ErrReviewNotEditable: the review cannot be edited with this token (it
// is someone else's, or gone).
var ErrReviewNotEditable = errors.New("the review is not core's to edit, or is gone")

// UpdateReview replaces the body of review id of pull request number and
// returns its address. A review this token may not edit, or that is gone,
// is ErrReviewNotEditable.
func (c *Client) UpdateReview(ctx context.Context, owner, name string, number int, id int64, body string) (string, error) {
	rv, _, err := c.gh.PullRequests.UpdateReview(ctx, owner, name, number, id, body)
	if s := httpStatus(err); s == http.StatusForbidden || s == http.StatusNotFound {
		err = fmt.Errorf("%w: %w", ErrReviewNotEditable, err)
	}
	if err != nil {
		return "", fmt.Errorf("update review %d on pull request #%d of %s/%s: %w", id, number, owner, name, err)
	}
	return rv.GetHTMLURL(), nil
}
