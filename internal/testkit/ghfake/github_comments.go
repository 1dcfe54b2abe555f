package ghfake

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// commentLocked finds comment {id} of the call's repository, answering 404
// when there is none. Callers hold g.mu.
func (c *apiCall) commentLocked() *commentState {
	id, err := strconv.ParseInt(c.params["id"], 10, 64)
	if cs := c.repo.comments[id]; err == nil && cs != nil {
		return cs
	}
	c.fail(http.StatusNotFound, "Not Found")
	return nil
}

// wireCommentLocked is a comment as GitHub sends it. Callers hold g.mu.
func (r *Repo) wireCommentLocked(cs *commentState) wireComment {
	id := strconv.FormatInt(cs.ID, 10)
	page := "/issues/"
	if is := r.issues[cs.Issue]; is != nil && is.pull != nil {
		page = "/pull/"
	}
	url := r.apiURL() + "/issues/comments/" + id
	return wireComment{
		ID: cs.ID, NodeID: nodeID("IC", cs.ID), URL: url,
		HTMLURL:  r.HTMLURL() + page + strconv.Itoa(cs.Issue) + "#issuecomment-" + id,
		IssueURL: r.apiURL() + "/issues/" + strconv.Itoa(cs.Issue),
		Body:     cs.Body, User: r.g.wireUser(cs.User),
		CreatedAt: wireTime(cs.CreatedAt), UpdatedAt: wireTime(cs.UpdatedAt),
		AuthorAssociation: r.associationLocked(cs.AuthorAssociation, cs.User),
		Reactions:         reactionSummary(url+"/reactions", cs.reactions),
	}
}

// GET /repos/{owner}/{repo}/issues/{number}/comments, oldest first,
// filtered by since (updated at or after) and paginated.
func (g *GitHub) listComments(c *apiCall) {
	since, ok := c.since()
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	is := c.issueLocked()
	if is == nil {
		return
	}
	var list []*commentState
	for _, id := range is.comments {
		if cs := c.repo.comments[id]; !cs.UpdatedAt.Before(since) {
			list = append(list, cs)
		}
	}
	out := make([]wireComment, 0, len(list))
	for _, cs := range paginate(c, list) {
		out = append(out, c.repo.wireCommentLocked(cs))
	}
	c.json(http.StatusOK, out)
}

// POST /repos/{owner}/{repo}/issues/{number}/comments
func (g *GitHub) createComment(c *apiCall) {
	body, ok := c.commentBody()
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	is := c.issueLocked()
	if is == nil {
		return
	}
	cs := c.repo.addCommentLocked(is, Comment{User: c.login, Body: body})
	is.touch()
	w := c.repo.wireCommentLocked(cs)
	c.w.Header().Set("Location", w.URL)
	c.json(http.StatusCreated, w)
}

func (c *apiCall) commentBody() (string, bool) {
	var in struct {
		Body string `json:"body"`
	}
	if !c.decode(&in) {
		return "", false
	}
	if in.Body == "" {
		c.invalid(fieldError{Resource: "IssueComment", Field: "body", Code: "missing_field"})
		return "", false
	}
	return in.Body, true
}

// GET /repos/{owner}/{repo}/issues/comments/{id}
func (g *GitHub) getComment(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cs := c.commentLocked(); cs != nil {
		c.json(http.StatusOK, c.repo.wireCommentLocked(cs))
	}
}

// mayChangeLocked reports whether the caller may edit or delete a
// comment: its author or a user with write permission; it answers 403
// otherwise. Callers hold g.mu.
func (c *apiCall) mayChangeLocked(cs *commentState) bool {
	if strings.EqualFold(cs.User, c.login) || c.repo.rankLocked(c.login) >= permWrite {
		return true
	}
	c.forbid()
	return false
}

// PATCH /repos/{owner}/{repo}/issues/comments/{id}
func (g *GitHub) editComment(c *apiCall) {
	body, ok := c.commentBody()
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	cs := c.commentLocked()
	if cs == nil || !c.mayChangeLocked(cs) {
		return
	}
	cs.Body = body
	if t := ghNow(); t.After(cs.UpdatedAt) {
		cs.UpdatedAt = t
	}
	c.json(http.StatusOK, c.repo.wireCommentLocked(cs))
}

// DELETE /repos/{owner}/{repo}/issues/comments/{id}
func (g *GitHub) deleteComment(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cs := c.commentLocked()
	if cs == nil || !c.mayChangeLocked(cs) {
		return
	}
	delete(c.repo.comments, cs.ID)
	if is := c.repo.issues[cs.Issue]; is != nil {
		is.comments = slices.DeleteFunc(is.comments, func(id int64) bool { return id == cs.ID })
	}
	c.w.WriteHeader(http.StatusNoContent)
}

// GET /repos/{owner}/{repo}/issues/comments/{id}/reactions
func (g *GitHub) listCommentReactions(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cs := c.commentLocked(); cs != nil {
		c.listReactionsLocked(cs.reactions)
	}
}

// POST /repos/{owner}/{repo}/issues/comments/{id}/reactions
func (g *GitHub) reactToComment(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cs := c.commentLocked(); cs != nil {
		c.reactLocked(&cs.reactions)
	}
}

// GET /repos/{owner}/{repo}/issues/{number}/reactions
func (g *GitHub) listIssueReactions(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if is := c.issueLocked(); is != nil {
		c.listReactionsLocked(is.reactions)
	}
}

// POST /repos/{owner}/{repo}/issues/{number}/reactions
func (g *GitHub) reactToIssue(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if is := c.issueLocked(); is != nil {
		c.reactLocked(&is.reactions)
	}
}

// reactLocked adds the caller's reaction {content} to list: 201 when new,
// 200 with the existing one when the caller already reacted so. Callers
// hold g.mu.
func (c *apiCall) reactLocked(list *[]Reaction) {
	var in struct {
		Content string `json:"content"`
	}
	if !c.decode(&in) {
		return
	}
	if !validReaction(in.Content) {
		c.invalid(fieldError{Resource: "Reaction", Field: "content", Code: "invalid"})
		return
	}
	for _, r := range *list {
		if r.Content == in.Content && strings.EqualFold(r.User, c.login) {
			c.json(http.StatusOK, c.g.wireReaction(r))
			return
		}
	}
	r := Reaction{ID: c.g.nextID(), User: c.login, Content: in.Content, CreatedAt: ghNow()}
	*list = append(*list, r)
	c.json(http.StatusCreated, c.g.wireReaction(r))
}

// listReactionsLocked answers with list, filtered by ?content=. Callers
// hold g.mu.
func (c *apiCall) listReactionsLocked(list []Reaction) {
	content := c.query("content")
	out := []wireReaction{}
	for _, r := range list {
		if content == "" || r.Content == content {
			out = append(out, c.g.wireReaction(r))
		}
	}
	c.json(http.StatusOK, paginate(c, out))
}

func (g *GitHub) wireReaction(r Reaction) wireReaction {
	return wireReaction{
		ID: r.ID, NodeID: nodeID("REA", r.ID), User: g.wireUser(r.User),
		Content: r.Content, CreatedAt: wireTime(r.CreatedAt),
	}
}

func validReaction(content string) bool {
	switch content {
	case "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes":
		return true
	}
	return false
}

// reactionSummary is the "reactions" rollup issues and comments carry.
func reactionSummary(url string, list []Reaction) wireReactions {
	s := wireReactions{URL: url, TotalCount: len(list)}
	for _, r := range list {
		counts := map[string]*int{
			"+1": &s.PlusOne, "-1": &s.MinusOne, "laugh": &s.Laugh, "confused": &s.Confused,
			"heart": &s.Heart, "hooray": &s.Hooray, "rocket": &s.Rocket, "eyes": &s.Eyes,
		}
		if p := counts[r.Content]; p != nil {
			*p++
		}
	}
	return s
}
