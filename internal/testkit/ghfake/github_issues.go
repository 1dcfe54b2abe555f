package ghfake

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// issueLocked finds issue {number} of the call's repository, answering 404
// when there is none. Callers hold g.mu.
func (c *apiCall) issueLocked() *issueState {
	if n, ok := c.number(); ok {
		if is := c.repo.issues[n]; is != nil {
			return is
		}
		c.fail(http.StatusNotFound, "Not Found")
	}
	return nil
}

// wireIssueLocked is an issue as GitHub sends it. Callers hold g.mu.
func (r *Repo) wireIssueLocked(is *issueState) wireIssue {
	n := strconv.Itoa(is.Number)
	url := r.apiURL() + "/issues/" + n
	w := wireIssue{
		ID: is.id, NodeID: nodeID("I", is.id), URL: url, HTMLURL: r.HTMLURL() + "/issues/" + n,
		CommentsURL: url + "/comments", Number: is.Number, State: is.State, Title: is.Title,
		Body: wireText(is.Body), User: r.g.wireUser(is.User), Labels: r.wireLabelsLocked(is.Labels),
		Assignees: []WireUser{}, Comments: len(is.comments), ClosedAt: wireTimePtr(is.ClosedAt),
		CreatedAt: wireTime(is.CreatedAt), UpdatedAt: wireTime(is.UpdatedAt),
		AuthorAssociation: r.associationLocked(is.AuthorAssociation, is.User),
		Reactions:         reactionSummary(url+"/reactions", is.reactions),
	}
	if is.pull != nil {
		html := r.HTMLURL() + "/pull/" + n
		w.HTMLURL = html
		w.PullRequest = &wireIssuePR{
			URL: r.apiURL() + "/pulls/" + n, HTMLURL: html, DiffURL: html + ".diff", PatchURL: html + ".patch",
		}
	}
	return w
}

// wireLabelsLocked is a label list as GitHub sends it. Callers hold g.mu.
func (r *Repo) wireLabelsLocked(names []string) []wireLabel {
	out := make([]wireLabel, 0, len(names))
	for _, name := range names {
		id := r.labelIDLocked(name)
		out = append(out, wireLabel{
			ID: id, NodeID: nodeID("LA", id), URL: r.apiURL() + "/labels/" + name,
			Name: name, Color: "ededed",
		})
	}
	return out
}

// GET /repos/{owner}/{repo}/issues lists issues and pull requests (GitHub
// includes pull requests) filtered by state (default open), labels (all
// must match), creator and since, sorted by created (default), updated or
// comments, newest first unless direction=asc.
func (g *GitHub) listIssues(c *apiCall) {
	since, ok := c.since()
	if !ok {
		return
	}
	state := cmp.Or(c.query("state"), "open")
	var labels []string
	if l := c.query("labels"); l != "" {
		labels = strings.Split(l, ",")
	}
	g.mu.Lock()
	var list []*issueState
	for _, is := range c.repo.issues {
		switch {
		case state != "all" && is.State != state,
			c.query("creator") != "" && !strings.EqualFold(is.User, c.query("creator")),
			is.UpdatedAt.Before(since):
			continue
		}
		if !slices.ContainsFunc(labels, func(l string) bool { return !slices.Contains(is.Labels, strings.TrimSpace(l)) }) {
			list = append(list, is)
		}
	}
	sortIssues(list, c.query("sort"), c.query("direction"))
	out := make([]wireIssue, 0, len(list))
	for _, is := range paginate(c, list) {
		out = append(out, c.repo.wireIssueLocked(is))
	}
	g.mu.Unlock()
	c.json(http.StatusOK, out)
}

func sortIssues(list []*issueState, by, direction string) {
	slices.SortFunc(list, func(a, b *issueState) int {
		var d int
		switch by {
		case "updated":
			d = a.UpdatedAt.Compare(b.UpdatedAt)
		case "comments":
			d = cmp.Compare(len(a.comments), len(b.comments))
		default:
			d = a.CreatedAt.Compare(b.CreatedAt)
		}
		d = cmp.Or(d, cmp.Compare(a.Number, b.Number))
		if direction != "asc" {
			d = -d
		}
		return d
	})
}

// POST /repos/{owner}/{repo}/issues; labels are dropped silently unless
// the caller can triage, as on GitHub.
func (g *GitHub) createIssue(c *apiCall) {
	var in struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Title == "" {
		c.invalid(fieldError{Resource: "Issue", Field: "title", Code: "missing_field"})
		return
	}
	g.mu.Lock()
	if c.repo.rankLocked(c.login) < permTriage {
		in.Labels = nil
	}
	is := c.repo.addIssueLocked(Issue{Title: in.Title, Body: in.Body, User: c.login, Labels: in.Labels, State: "open"}, nil)
	w := c.repo.wireIssueLocked(is)
	g.mu.Unlock()
	c.w.Header().Set("Location", w.URL)
	c.json(http.StatusCreated, w)
}

// GET /repos/{owner}/{repo}/issues/{number}
func (g *GitHub) getIssue(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if is := c.issueLocked(); is != nil {
		c.json(http.StatusOK, c.repo.wireIssueLocked(is))
	}
}

// PATCH /repos/{owner}/{repo}/issues/{number}: title, body, state and
// labels, by the author or a user who can triage.
func (g *GitHub) editIssue(c *apiCall) {
	var in struct {
		Title  *string   `json:"title"`
		Body   *string   `json:"body"`
		State  *string   `json:"state"`
		Labels *[]string `json:"labels"`
	}
	if !c.decode(&in) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	is := c.issueLocked()
	if is == nil {
		return
	}
	triage := c.repo.rankLocked(c.login) >= permTriage
	if !triage && !strings.EqualFold(is.User, c.login) {
		c.forbid()
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		c.invalid(fieldError{Resource: "Issue", Field: "state", Code: "invalid"})
		return
	}
	is.applyEdit(in.Title, in.Body, in.State)
	if in.Labels != nil && triage {
		is.Labels = slices.Clone(*in.Labels)
	}
	c.json(http.StatusOK, c.repo.wireIssueLocked(is))
}

// applyEdit changes the given fields and bumps updated_at.
func (is *issueState) applyEdit(title, body, state *string) {
	t := ghNow()
	if title != nil {
		is.Title = *title
	}
	if body != nil {
		is.Body = *body
	}
	if state != nil && *state != is.State {
		is.State = *state
		is.ClosedAt = time.Time{}
		if is.State == "closed" {
			is.ClosedAt = t
		}
	}
	is.touch()
}

// touch bumps updated_at, never backwards (fixtures may lie in the future).
func (is *issueState) touch() {
	if t := ghNow(); t.After(is.UpdatedAt) {
		is.UpdatedAt = t
	}
}

// GET /repos/{owner}/{repo}/issues/{number}/labels
func (g *GitHub) listLabels(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if is := c.issueLocked(); is != nil {
		c.json(http.StatusOK, paginate(c, c.repo.wireLabelsLocked(is.Labels)))
	}
}

// POST /repos/{owner}/{repo}/issues/{number}/labels takes a bare array of
// names or {"labels": [...]}, needs triage, and answers with all labels.
// GET /repos/{owner}/{repo}/labels/{name}: one of the repository's labels,
// or 404 when it has none of that name.
func (g *GitHub) getLabel(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	name := c.params["name"]
	if _, ok := c.repo.labels[name]; !ok {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	c.json(http.StatusOK, c.repo.wireLabelsLocked([]string{name})[0])
}

func (g *GitHub) addLabels(c *apiCall) {
	names, ok := c.labelNames()
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	is := c.issueLocked()
	if is == nil {
		return
	}
	if c.repo.rankLocked(c.login) < permTriage {
		c.forbid()
		return
	}
	for _, name := range names {
		if !slices.Contains(is.Labels, name) {
			is.Labels = append(is.Labels, name)
		}
	}
	is.touch()
	c.json(http.StatusOK, c.repo.wireLabelsLocked(is.Labels))
}

func (c *apiCall) labelNames() ([]string, bool) {
	var names []string
	if json.Unmarshal(c.body, &names) == nil {
		return names, true
	}
	var in struct {
		Labels json.RawMessage `json:"labels"`
	}
	if !c.decode(&in) {
		return nil, false
	}
	if json.Unmarshal(in.Labels, &names) == nil {
		return names, true
	}
	var objs []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(in.Labels, &objs); err != nil {
		c.invalid(fieldError{Resource: "Label", Field: "labels", Code: "invalid"})
		return nil, false
	}
	for _, o := range objs {
		names = append(names, o.Name)
	}
	return names, true
}

// DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}
func (g *GitHub) removeLabel(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	is := c.issueLocked()
	if is == nil {
		return
	}
	if c.repo.rankLocked(c.login) < permTriage {
		c.forbid()
		return
	}
	i := slices.Index(is.Labels, c.params["name"])
	if i < 0 {
		c.fail(http.StatusNotFound, "Label does not exist")
		return
	}
	is.Labels = slices.Delete(is.Labels, i, i+1)
	is.touch()
	c.json(http.StatusOK, c.repo.wireLabelsLocked(is.Labels))
}
