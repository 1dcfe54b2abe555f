package ghfake

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ReviewThread is a conversation on lines of a pull request's diff.
type ReviewThread struct {
	Resolved bool
	// Outdated threads are on lines the head has since changed: their
	// line is null, on REST and GraphQL alike.
	Outdated bool
	// Comments are the thread's root comment and its replies, oldest first.
	Comments []ReviewComment
}

// ReviewComment is one comment of a review thread.
type ReviewComment struct {
	// User is the author's login; AddReviewThread defaults it to the owner.
	User string
	Body string
	// Path and Line default to the thread's root comment's.
	Path string
	Line int
	// CreatedAt defaults to now.
	CreatedAt time.Time
	// CommitID is the head the comment was made on; it defaults to the
	// pull request's head when the comment is added.
	CommitID string
}

type threadState struct {
	ReviewThread
	ids []int64 // of Comments
}

// AddReviewThread adds a review thread to pull request pull of
// owner/repo. Its first comment is the root, which needs a path; the
// others reply to it.
func (g *GitHub) AddReviewThread(owner, repo string, pull int, th ReviewThread) error {
	r := g.repo(owner, repo)
	if r == nil {
		return fmt.Errorf("add review thread to %s/%s#%d: no such repository", owner, repo, pull)
	}
	if len(th.Comments) == 0 || th.Comments[0].Path == "" {
		return fmt.Errorf("add review thread to %s/%s#%d: %w", owner, repo, pull,
			errors.New("a thread needs a first comment with a path"))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	is := r.issues[pull]
	if is == nil || is.pull == nil {
		return fmt.Errorf("add review thread to %s/%s#%d: no such pull request", owner, repo, pull)
	}
	g.addThreadLocked(pullKey{repo: r, pull: pull}, th, is.pull.headSHA)
	return nil
}

// addThreadLocked adds th to pull request k with its defaults (author:
// the owner; commit: head) and returns it. Callers hold g.mu.
func (g *GitHub) addThreadLocked(k pullKey, th ReviewThread, head string) *threadState {
	st := &threadState{ReviewThread: th}
	st.Comments = slices.Clone(th.Comments)
	root := st.Comments[0]
	for i := range st.Comments {
		c := &st.Comments[i]
		c.User = cmp.Or(c.User, k.repo.owner)
		c.Path = cmp.Or(c.Path, root.Path)
		c.Line = cmp.Or(c.Line, root.Line)
		c.CreatedAt = cmp.Or(c.CreatedAt, ghNow())
		c.CommitID = cmp.Or(c.CommitID, head)
		st.ids = append(st.ids, g.nextID())
	}
	if g.ext.threads == nil {
		g.ext.threads = make(map[pullKey][]*threadState)
	}
	g.ext.threads[k] = append(g.ext.threads[k], st)
	return st
}

type wireReviewComment struct {
	ID                  int64         `json:"id"`
	NodeID              string        `json:"node_id"`
	URL                 string        `json:"url"`
	PullRequestReviewID *int64        `json:"pull_request_review_id"`
	DiffHunk            string        `json:"diff_hunk"`
	Path                string        `json:"path"`
	Position            *int          `json:"position"`
	OriginalPosition    int           `json:"original_position"`
	CommitID            string        `json:"commit_id"`
	OriginalCommitID    string        `json:"original_commit_id"`
	InReplyToID         *int64        `json:"in_reply_to_id,omitempty"`
	User                WireUser      `json:"user"`
	Body                string        `json:"body"`
	CreatedAt           string        `json:"created_at"`
	UpdatedAt           string        `json:"updated_at"`
	HTMLURL             string        `json:"html_url"`
	PullRequestURL      string        `json:"pull_request_url"`
	AuthorAssociation   string        `json:"author_association"`
	StartLine           *int          `json:"start_line"`
	OriginalStartLine   *int          `json:"original_start_line"`
	StartSide           *string       `json:"start_side"`
	Line                *int          `json:"line"`
	OriginalLine        int           `json:"original_line"`
	Side                string        `json:"side"`
	SubjectType         string        `json:"subject_type"`
	Reactions           wireReactions `json:"reactions"`
}

// wireReviewCommentLocked is comment i of a thread as GitHub's REST API
// sends it. Callers hold g.mu.
func (r *Repo) wireReviewCommentLocked(k pullKey, th *threadState, i int) wireReviewComment {
	c, id := th.Comments[i], th.ids[i]
	n := strconv.Itoa(k.pull)
	url := r.apiURL() + "/pulls/comments/" + strconv.FormatInt(id, 10)
	sha := c.CommitID
	w := wireReviewComment{
		ID: id, NodeID: nodeID("PRRC", id), URL: url, DiffHunk: "@@ -1 +1 @@",
		Path: c.Path, OriginalPosition: c.Line, CommitID: sha, OriginalCommitID: sha,
		User: r.g.wireUser(c.User), Body: c.Body,
		CreatedAt: wireTime(c.CreatedAt), UpdatedAt: wireTime(c.CreatedAt),
		HTMLURL:           r.HTMLURL() + "/pull/" + n + "#discussion_r" + strconv.FormatInt(id, 10),
		PullRequestURL:    r.apiURL() + "/pulls/" + n,
		AuthorAssociation: r.associationLocked("", c.User),
		OriginalLine:      c.Line, Side: "RIGHT", SubjectType: "line",
		Reactions: reactionSummary(url+"/reactions", nil),
	}
	if !th.Outdated {
		w.Line, w.Position = ptr(c.Line), ptr(c.Line)
	}
	if i > 0 {
		w.InReplyToID = &th.ids[0]
	}
	return w
}

// GET /repos/{owner}/{repo}/pulls/{number}/comments: the review comments
// of every thread, oldest first, paginated.
func (g *GitHub) listReviewComments(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	is := c.pullLocked()
	if is == nil {
		return
	}
	k := pullKey{repo: c.repo, pull: is.Number}
	type ref struct {
		th *threadState
		i  int
	}
	var all []ref
	for _, th := range g.ext.threads[k] {
		for i := range th.Comments {
			all = append(all, ref{th, i})
		}
	}
	slices.SortStableFunc(all, func(a, b ref) int {
		return cmp.Or(a.th.Comments[a.i].CreatedAt.Compare(b.th.Comments[b.i].CreatedAt),
			cmp.Compare(a.th.ids[a.i], b.th.ids[b.i]))
	})
	out := []wireReviewComment{}
	for _, x := range paginate(c, all) {
		out = append(out, c.repo.wireReviewCommentLocked(k, x.th, x.i))
	}
	c.json(http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/pulls/{number}/reviews: the pull request's
// reviews, oldest first, paginated. A pending review is listed only to its
// author, as on GitHub.
func (g *GitHub) listReviews(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	is := c.pullLocked()
	if is == nil {
		return
	}
	var out []wireReview
	for _, rv := range g.ext.reviews[pullKey{repo: c.repo, pull: is.Number}] {
		if rv.State == "PENDING" && rv.User != c.login {
			continue
		}
		out = append(out, reviewWireLocked(c, is, rv))
	}
	c.json(http.StatusOK, paginate(c, out))
}

// PUT /repos/{owner}/{repo}/pulls/{number}/reviews/{review_id}: a new
// body for a review. Only its author may change it; a blank body is
// refused with 422, as on GitHub.
func (g *GitHub) updateReview(c *apiCall) {
	var in struct {
		Body *string `json:"body"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Body == nil || *in.Body == "" {
		c.invalid(fieldError{Resource: "PullRequestReview", Field: "body", Code: "missing_field"})
		return
	}
	id, err := strconv.ParseInt(c.params["review_id"], 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	is := c.pullLocked()
	if is == nil {
		return
	}
	list := g.ext.reviews[pullKey{repo: c.repo, pull: is.Number}]
	for i := range list {
		if err != nil || list[i].ID != id {
			continue
		}
		if list[i].User != c.login {
			c.forbid()
			return
		}
		list[i].Body = *in.Body
		c.json(http.StatusOK, reviewWireLocked(c, is, list[i]))
		return
	}
	c.fail(http.StatusNotFound, "Not Found")
}

// ReviewComments returns the review comments of pull request pull of
// owner/repo (every thread's, replies included), oldest first.
func (g *GitHub) ReviewComments(owner, repo string, pull int) []ReviewComment {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []ReviewComment
	for _, th := range g.ext.threads[pullKey{repo: r, pull: pull}] {
		out = append(out, th.Comments...)
	}
	return out
}

// reviewCommentLocked finds review comment {comment_id} of the call's
// repository, answering 404 when there is none. Callers hold g.mu.
func (c *apiCall) reviewCommentLocked() (k pullKey, th *threadState, i int, ok bool) {
	id, err := strconv.ParseInt(c.params["comment_id"], 10, 64)
	for key, list := range c.g.ext.threads {
		if err != nil || key.repo != c.repo {
			continue
		}
		for _, t := range list {
			if j := slices.Index(t.ids, id); j >= 0 {
				return key, t, j, true
			}
		}
	}
	c.fail(http.StatusNotFound, "Not Found")
	return pullKey{}, nil, 0, false
}

// ownReviewCommentLocked is reviewCommentLocked for a change: only the
// comment's author may make it, others get 403. Callers hold g.mu.
func (c *apiCall) ownReviewCommentLocked() (k pullKey, th *threadState, i int, ok bool) {
	k, th, i, ok = c.reviewCommentLocked()
	if ok && !strings.EqualFold(th.Comments[i].User, c.login) {
		c.forbid()
		return pullKey{}, nil, 0, false
	}
	return k, th, i, ok
}

// PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}: a new body for
// a review comment. This double lets only its author change it (403
// otherwise); a blank body is 422.
func (g *GitHub) editReviewComment(c *apiCall) {
	var in struct {
		Body string `json:"body"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Body == "" {
		c.invalid(fieldError{Resource: "PullRequestReviewComment", Field: "body", Code: "missing_field"})
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	k, th, i, ok := c.ownReviewCommentLocked()
	if !ok {
		return
	}
	th.Comments[i].Body = in.Body
	c.json(http.StatusOK, c.repo.wireReviewCommentLocked(k, th, i))
}

// DELETE /repos/{owner}/{repo}/pulls/comments/{comment_id}: 204; only its
// author may (403 otherwise). A thread left without comments is gone.
func (g *GitHub) deleteReviewComment(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k, th, i, ok := c.ownReviewCommentLocked()
	if !ok {
		return
	}
	th.Comments, th.ids = slices.Delete(th.Comments, i, i+1), slices.Delete(th.ids, i, i+1)
	if len(th.Comments) == 0 {
		g.ext.threads[k] = slices.DeleteFunc(g.ext.threads[k], func(t *threadState) bool { return t == th })
	}
	c.w.WriteHeader(http.StatusNoContent)
}
