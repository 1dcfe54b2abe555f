package review

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/status"
)

// Poster is what posting a review needs of GitHub; *gh.Client is one.
type Poster interface {
	Reviews(ctx context.Context, owner, name string, number int) ([]gh.Review, error)
	SubmitReview(ctx context.Context, owner, name string, number int, r gh.NewReview) (gh.Review, string, error)
	UpdateReview(ctx context.Context, owner, name string, number int, id int64, body string) (string, error)
	PullFiles(ctx context.Context, owner, name string, number int) ([]gh.PullFile, error)
	ReviewComments(ctx context.Context, owner, name string, number int) ([]gh.PullComment, error)
	CreateReviewComment(ctx context.Context, owner, name string, number int, commit string, d gh.DraftComment) (gh.PullComment, error)
	EditReviewComment(ctx context.Context, owner, name string, id int64, body string) error
}

// Target names the pull request a review goes on.
type Target struct {
	Owner, Name string
	Number      int
}

// Posted is what Post did: the review's address, whether it edited the
// head's review rather than submitting one, how many line comments it
// added and edited on this head and on older ones, and what it could not
// do after the review was up (Notes: a comment GitHub refused).
type Posted struct {
	URL                  string
	Updated              bool
	Added, Edited, Older int
	Notes                []string
	// CheckRun is the core/review check run's page (Publish), or "no
	// check run: " and GitHub's words.
	CheckRun string
}

// Publisher is what publishing a review needs of GitHub; *gh.Client is
// one.
type Publisher interface {
	Poster
	CheckRunner
}

// Publish posts r (Post), then its core/review check run (CheckRun),
// which links to the review. Only the review's failure is an error: a
// check run GitHub refuses (a personal token may make none) is said in
// Posted.CheckRun, in GitHub's words.
func Publish(ctx context.Context, c Publisher, p Target, r Result, scrub func(string) string) (Posted, error) {
	out, err := Post(ctx, c, p, r, scrub)
	if err != nil {
		return out, err
	}
	page, err := CheckRun(ctx, c, p, r, out.URL, scrub)
	if err != nil {
		page = "no check run: " + scrub(gh.CheckRunWords(err))
	}
	out.CheckRun = page
	return out, nil
}

// Post puts r on pull request p as core's one review of r.Head: the body
// (Body), and a line comment on the RIGHT side for each confirmed finding
// whose line the diff shows (the others stay in the body, which says so).
// A re-run on the same head edits the review that carries
// status.ReviewMarker(head) and matches its line comments by
// status.FindingMarker: the same finding's is edited, a finding no longer
// confirmed has its comment say so, a new one is added. On a new head,
// core's comments on older heads get a first line: still reproduces, or
// resolved. Only comments by the login that wrote the review are
// touched. scrub is applied to everything posted.
func Post(ctx context.Context, c Poster, p Target, r Result, scrub func(string) string) (Posted, error) {
	files, err := c.PullFiles(ctx, p.Owner, p.Name, p.Number)
	if err != nil {
		return Posted{}, err
	}
	shown := map[string]map[int]bool{}
	for _, f := range files {
		shown[f.Path] = diffLines(f.Patch)
	}
	var drafts []draft
	r.NoComment = map[int]string{}
	for i, f := range r.Findings {
		switch {
		case !f.Confirmed || f.Line <= 0:
		case !shown[f.File][f.Line]:
			r.NoComment[i] = fmt.Sprintf("Line %d is not in the diff", f.Line)
		default:
			drafts = append(drafts, draft{key: f.Key(), DraftComment: gh.DraftComment{Path: f.File, Line: f.Line, Body: scrub(Comment(f, r.Head))}})
		}
	}
	out, login, err := postBody(ctx, c, p, r.Head, scrub(Body(r)), drafts)
	if errors.Is(err, gh.ErrLinesRefused) {
		// The diff GitHub holds the lines to is not the one read above
		// (the head moved since): the review goes up all the same, each
		// finding's evidence in its body, and says why it has no line.
		for _, d := range drafts {
			for i, f := range r.Findings {
				if f.Key() == d.key {
					r.NoComment[i] = "GitHub refused the line comments (the pull request's head may have moved since the review)"
				}
			}
		}
		drafts = nil
		out, login, err = postBody(ctx, c, p, r.Head, scrub(Body(r)), nil)
		out.Notes = append(out.Notes, "GitHub refused the line comments, so the findings are in the review's body alone")
	}
	if err != nil {
		return out, err
	}
	s := syncer{c: c, p: p, login: login, head: r.Head, url: out.URL, out: &out}
	s.comments(ctx, r, drafts)
	return out, nil
}

// draft is a line comment to make, with its finding's key.
type draft struct {
	key string
	gh.DraftComment
}

// postBody edits the head's review (the newest core wrote with the
// head's marker) or submits one with drafts, and returns the login that
// wrote it. A review someone else wrote with the marker in it cannot be
// edited: a new one is posted instead.
func postBody(ctx context.Context, c Poster, p Target, head, body string, drafts []draft) (Posted, string, error) {
	list, err := c.Reviews(ctx, p.Owner, p.Name, p.Number)
	if err != nil {
		return Posted{}, "", err
	}
	marker := status.ReviewMarker(head)
	for i := len(list) - 1; i >= 0; i-- {
		rv := list[i]
		if rv.CommitID != head || !strings.Contains(rv.Body, marker) {
			continue
		}
		url, err := c.UpdateReview(ctx, p.Owner, p.Name, p.Number, rv.ID, body)
		if !errors.Is(err, gh.ErrReviewNotEditable) {
			return Posted{URL: url, Updated: err == nil}, rv.User, err
		}
		break
	}
	nr := gh.NewReview{CommitID: head, Body: body}
	for _, d := range drafts {
		nr.Comments = append(nr.Comments, d.DraftComment)
	}
	rv, url, err := c.SubmitReview(ctx, p.Owner, p.Name, p.Number, nr)
	return Posted{URL: url, Added: len(drafts)}, rv.User, err
}

// Where says in a few words where Post put the review.
func Where(out Posted, head string) string {
	s := "posted a review of " + clip.Hash(head) + ": " + out.URL
	if out.Updated {
		s = "updated the review of " + clip.Hash(head) + ": " + out.URL
	}
	if out.Added+out.Edited+out.Older > 0 {
		s += " (line comments: " + plainCounts(out) + ")"
	}
	return s
}
