package ghfake

import (
	"net/http"
	"strconv"
)

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
