package ghfake

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Review is a pull request review submitted through the API.
type Review struct {
	ID       int64
	User     string
	CommitID string
	Body     string
	// State is COMMENTED, APPROVED, CHANGES_REQUESTED or PENDING.
	State    string
	Comments []ReviewDraftComment
	// SubmittedAt is when it was submitted (zero while pending).
	SubmittedAt time.Time
}

// ReviewDraftComment is a comment of a review as it was posted: on Line of
// Path (from StartLine when it spans lines), Side RIGHT or LEFT.
type ReviewDraftComment struct {
	Path      string
	Line      int
	StartLine int
	Side      string
	StartSide string
	Body      string
}

// Reviews returns the reviews of pull request number of owner/repo, oldest
// first.
func (g *GitHub) Reviews(owner, repo string, number int) []Review {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Review
	for _, rv := range g.ext.reviews[pullKey{repo: r, pull: number}] {
		rv.Comments = slices.Clone(rv.Comments)
		out = append(out, rv)
	}
	return out
}

type wireReview struct {
	ID                int64    `json:"id"`
	NodeID            string   `json:"node_id"`
	User              WireUser `json:"user"`
	Body              string   `json:"body"`
	State             string   `json:"state"`
	HTMLURL           string   `json:"html_url"`
	PullRequestURL    string   `json:"pull_request_url"`
	CommitID          string   `json:"commit_id"`
	SubmittedAt       *string  `json:"submitted_at,omitempty"`
	AuthorAssociation string   `json:"author_association"`
}

// reviewError is GitHub's 422 for a review it cannot place: its errors are
// plain strings, not field errors.
type reviewError struct {
	Message          string   `json:"message"`
	Errors           []string `json:"errors"`
	DocumentationURL string   `json:"documentation_url"`
	Status           string   `json:"status"`
}

// POST /repos/{owner}/{repo}/pulls/{number}/reviews: a review with its
// comments, submitted at once (event COMMENT, APPROVE, REQUEST_CHANGES) or
// left pending (no event). As on GitHub, every comment must sit on lines
// the pull request's diff shows (one hunk for a range), on the side it
// names; otherwise 422 and nothing is created. The author cannot approve
// or request changes on their own pull request.
func (g *GitHub) createReview(c *apiCall) {
	var in reviewInput
	if !c.decode(&in) {
		return
	}
	state, ok := map[string]string{"": "PENDING", "COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}[in.Event]
	if !ok {
		c.invalid(fieldError{Resource: "PullRequestReview", Field: "event", Code: "invalid"})
		return
	}
	g.mu.Lock()
	is := c.pullLocked()
	g.mu.Unlock()
	if is == nil {
		return
	}
	unprocessable := func(errs ...string) {
		c.json(http.StatusUnprocessableEntity, reviewError{Message: "Unprocessable Entity", Errors: errs, DocumentationURL: githubDocs, Status: "422"})
	}
	if (state == "COMMENTED" || state == "CHANGES_REQUESTED") && in.Body == "" && len(in.Comments) == 0 {
		unprocessable("Review body can't be blank")
		return
	}
	diff, ok := g.pullDiff(c, is)
	if !ok {
		return
	}
	comments, problem := placeComments(in.Comments, diff)
	if problem != "" {
		unprocessable(problem)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if state == "APPROVED" || state == "CHANGES_REQUESTED" {
		if is.User == c.login {
			unprocessable(fmt.Sprintf("Can not %s your own pull request", map[string]string{"APPROVED": "approve", "CHANGES_REQUESTED": "request changes on"}[state]))
			return
		}
	}
	rv := Review{ID: g.nextID(), User: c.login, CommitID: cmp.Or(in.CommitID, is.pull.headSHA), Body: in.Body, State: state, Comments: comments}
	if state != "PENDING" {
		rv.SubmittedAt = ghNow()
	}
	if g.ext.reviews == nil {
		g.ext.reviews = make(map[pullKey][]Review)
	}
	k := pullKey{repo: c.repo, pull: is.Number}
	g.ext.reviews[k] = append(g.ext.reviews[k], rv)
	for _, d := range comments {
		g.addThreadLocked(k, ReviewThread{Comments: []ReviewComment{{User: c.login, Body: d.Body, Path: d.Path, Line: d.Line, CommitID: rv.CommitID}}}, rv.CommitID)
	}
	c.json(http.StatusOK, reviewWireLocked(c, is, rv))
}

// POST /repos/{owner}/{repo}/pulls/{number}/comments: one review comment
// outside a review, on commit_id (required), placed as a review's
// comments are: on lines the diff shows, or 422 and nothing made. This
// double takes no replies (in_reply_to).
func (g *GitHub) createReviewComment(c *apiCall) {
	var in struct {
		reviewCommentInput
		CommitID string `json:"commit_id"`
	}
	if !c.decode(&in) {
		return
	}
	if in.CommitID == "" {
		c.invalid(fieldError{Resource: "PullRequestReviewComment", Field: "commit_id", Code: "missing_field"})
		return
	}
	g.mu.Lock()
	is := c.pullLocked()
	g.mu.Unlock()
	if is == nil {
		return
	}
	diff, ok := g.pullDiff(c, is)
	if !ok {
		return
	}
	placed, problem := placeComments([]reviewCommentInput{in.reviewCommentInput}, diff)
	if problem != "" {
		c.json(http.StatusUnprocessableEntity, reviewError{Message: "Unprocessable Entity", Errors: []string{problem}, DocumentationURL: githubDocs, Status: "422"})
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	k := pullKey{repo: c.repo, pull: is.Number}
	d := placed[0]
	th := g.addThreadLocked(k, ReviewThread{Comments: []ReviewComment{{User: c.login, Body: d.Body, Path: d.Path, Line: d.Line, CommitID: in.CommitID}}}, in.CommitID)
	c.json(http.StatusCreated, c.repo.wireReviewCommentLocked(k, th, 0))
}

// reviewInput is the body of a review's POST.
type reviewInput struct {
	CommitID string               `json:"commit_id"`
	Body     string               `json:"body"`
	Event    string               `json:"event"`
	Comments []reviewCommentInput `json:"comments"`
}

type reviewCommentInput struct {
	Path      string `json:"path"`
	Position  *int   `json:"position"`
	Body      string `json:"body"`
	Line      *int   `json:"line"`
	Side      string `json:"side"`
	StartLine *int   `json:"start_line"`
	StartSide string `json:"start_side"`
}

// placeComments places each comment on the lines of the pull request's
// diff (diff: each file's right-side lines, with their hunks), or says,
// as GitHub's 422 would, why one cannot be placed.
func placeComments(in []reviewCommentInput, diff map[string]map[int]int) (comments []ReviewDraftComment, problem string) {
	for _, cm := range in {
		if cm.Position != nil || cm.Line == nil || cm.Path == "" || cm.Body == "" {
			return nil, "Path, line and body are required (this double takes line, not position)"
		}
		d := ReviewDraftComment{Path: cm.Path, Line: *cm.Line, Side: cmp.Or(cm.Side, "RIGHT"), Body: cm.Body}
		if cm.StartLine != nil {
			d.StartLine, d.StartSide = *cm.StartLine, cmp.Or(cm.StartSide, d.Side)
		}
		if d.Side != "RIGHT" || (d.StartLine != 0 && d.StartSide != "RIGHT") {
			return nil, "This double places comments on the RIGHT side only"
		}
		lines, inDiff := diff[d.Path]
		hunk, onLine := lines[d.Line]
		if !inDiff || !onLine {
			return nil, "Line could not be resolved"
		}
		if d.StartLine != 0 {
			if d.StartLine >= d.Line {
				return nil, "start_line must precede line"
			}
			if h, ok := lines[d.StartLine]; !ok || h != hunk {
				return nil, "Start line could not be resolved"
			}
		}
		comments = append(comments, d)
	}
	return comments, ""
}

// reviewWireLocked is rv as the API returns it; g.mu is held.
func reviewWireLocked(c *apiCall, is *issueState, rv Review) wireReview {
	n := strconv.Itoa(is.Number)
	w := wireReview{
		ID: rv.ID, NodeID: nodeID("PRR", rv.ID), User: c.repo.g.wireUser(rv.User), Body: rv.Body, State: rv.State,
		HTMLURL:        c.repo.HTMLURL() + "/pull/" + n + "#pullrequestreview-" + strconv.FormatInt(rv.ID, 10),
		PullRequestURL: c.repo.apiURL() + "/pulls/" + n, CommitID: rv.CommitID,
		AuthorAssociation: c.repo.associationLocked("", rv.User),
	}
	if !rv.SubmittedAt.IsZero() {
		w.SubmittedAt = ptr(wireTime(rv.SubmittedAt))
	}
	return w
}

// pullDiff is each file's right-side lines of pull request is, with their
// hunks, answering 500 when the diff cannot be made.
func (g *GitHub) pullDiff(c *apiCall, is *issueState) (map[string]map[int]int, bool) {
	g.refreshPulls(c.r.Context(), c.repo, []*issueState{is})
	files, err := g.pullFiles(c.r.Context(), c.repo, is)
	if err != nil {
		c.fail(http.StatusInternalServerError, err.Error())
		return nil, false
	}
	diff := map[string]map[int]int{}
	for _, f := range files {
		diff[f.Filename] = rightLines(f.Patch)
	}
	return diff, true
}
