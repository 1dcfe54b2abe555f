package review

import (
	"context"
	"errors"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/status"
)

// Poster is what posting a review needs of GitHub; *gh.Client is one.
type Poster interface {
	Reviews(ctx context.Context, owner, name string, number int) ([]gh.Review, error)
	CreateReview(ctx context.Context, owner, name string, number int, r gh.NewReview) (string, error)
	UpdateReview(ctx context.Context, owner, name string, number int, id int64, body string) (string, error)
}

// Post puts body on pull request number as core's one review of head: it
// edits the review of that head that carries status.ReviewMarker(head)
// (the newest, when there are several), and otherwise submits a COMMENT
// review on head. updated says which. A review someone else wrote with
// the marker in it cannot be edited: a new one is posted instead.
func Post(ctx context.Context, c Poster, owner, name string, number int, head, body string) (url string, updated bool, err error) {
	list, err := c.Reviews(ctx, owner, name, number)
	if err != nil {
		return "", false, err
	}
	marker := status.ReviewMarker(head)
	for i := len(list) - 1; i >= 0; i-- {
		rv := list[i]
		if rv.CommitID != head || !strings.Contains(rv.Body, marker) {
			continue
		}
		url, err := c.UpdateReview(ctx, owner, name, number, rv.ID, body)
		if !errors.Is(err, gh.ErrReviewNotEditable) {
			return url, err == nil, err
		}
		break
	}
	url, err = c.CreateReview(ctx, owner, name, number, gh.NewReview{CommitID: head, Body: body})
	return url, false, err
}

// Where says in a few words where Post put the review.
func Where(url, head string, updated bool) string {
	if updated {
		return "updated the review of " + clip.Hash(head) + ": " + url
	}
	return "posted a review of " + clip.Hash(head) + ": " + url
}
