package ghfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// githubDocs is the documentation_url of error bodies.
const githubDocs = "https://docs.github.com/rest"

// apiRoute is one REST endpoint. A pattern segment "{name}" matches one path
// segment, "{name...}" the rest of the path; routes are tried in order.
type apiRoute struct {
	method string
	segs   []string
	handle func(c *apiCall)
}

// apiCall is one API request being served.
type apiCall struct {
	g      *GitHub
	w      http.ResponseWriter
	r      *http.Request
	login  string
	params map[string]string
	body   []byte
	// repo is the repository named by {owner}/{repo}, which the caller can
	// read; nil for routes without one.
	repo *Repo
}

func newAPIRoute(pattern string, handle func(c *apiCall)) apiRoute {
	method, path, _ := strings.Cut(pattern, " ")
	return apiRoute{method: method, segs: strings.Split(strings.Trim(path, "/"), "/"), handle: handle}
}

func (g *GitHub) apiRoutes() []apiRoute {
	const r = "/repos/{owner}/{repo}"
	return []apiRoute{
		newAPIRoute("GET /user", g.getUser),
		newAPIRoute("GET /users/{login}", g.getUserByLogin),
		newAPIRoute("GET "+r, g.getRepo),
		newAPIRoute("GET "+r+"/branches/{branch...}", g.getBranch),
		newAPIRoute("GET "+r+"/collaborators/{user}/permission", g.getPermission),
		newAPIRoute("POST "+r+"/actions/workflows/{workflow}/dispatches", g.dispatchWorkflow),
		newAPIRoute("POST "+r+"/actions/runs/{run}/cancel", g.cancelWorkflowRun),
		newAPIRoute("GET "+r+"/issues", g.listIssues),
		newAPIRoute("POST "+r+"/issues", g.createIssue),
		newAPIRoute("GET "+r+"/issues/comments/{id}", g.getComment),
		newAPIRoute("PATCH "+r+"/issues/comments/{id}", g.editComment),
		newAPIRoute("DELETE "+r+"/issues/comments/{id}", g.deleteComment),
		newAPIRoute("GET "+r+"/issues/comments/{id}/reactions", g.listCommentReactions),
		newAPIRoute("POST "+r+"/issues/comments/{id}/reactions", g.reactToComment),
		newAPIRoute("GET "+r+"/issues/{number}", g.getIssue),
		newAPIRoute("PATCH "+r+"/issues/{number}", g.editIssue),
		newAPIRoute("GET "+r+"/issues/{number}/comments", g.listComments),
		newAPIRoute("POST "+r+"/issues/{number}/comments", g.createComment),
		newAPIRoute("GET "+r+"/issues/{number}/reactions", g.listIssueReactions),
		newAPIRoute("POST "+r+"/issues/{number}/reactions", g.reactToIssue),
		newAPIRoute("GET "+r+"/labels/{name}", g.getLabel),
		newAPIRoute("GET "+r+"/issues/{number}/labels", g.listLabels),
		newAPIRoute("POST "+r+"/issues/{number}/labels", g.addLabels),
		newAPIRoute("DELETE "+r+"/issues/{number}/labels/{name}", g.removeLabel),
		newAPIRoute("GET "+r+"/pulls", g.listPulls),
		newAPIRoute("POST "+r+"/pulls", g.createPull),
		newAPIRoute("GET "+r+"/pulls/{number}", g.getPull),
		newAPIRoute("PATCH "+r+"/pulls/{number}", g.editPull),
		newAPIRoute("GET "+r+"/pulls/{number}/comments", g.listReviewComments),
		newAPIRoute("POST "+r+"/pulls/{number}/comments", g.createReviewComment),
		newAPIRoute("PATCH "+r+"/pulls/comments/{comment_id}", g.editReviewComment),
		newAPIRoute("DELETE "+r+"/pulls/comments/{comment_id}", g.deleteReviewComment),
		newAPIRoute("GET "+r+"/pulls/{number}/files", g.listPullFiles),
		newAPIRoute("GET "+r+"/pulls/{number}/reviews", g.listReviews),
		newAPIRoute("POST "+r+"/pulls/{number}/reviews", g.createReview),
		newAPIRoute("PUT "+r+"/pulls/{number}/reviews/{review_id}", g.updateReview),
		newAPIRoute("GET "+r+"/actions/variables", g.listVariables),
		newAPIRoute("POST "+r+"/actions/variables", g.createVariable),
		newAPIRoute("GET "+r+"/actions/variables/{name}", g.getVariable),
		newAPIRoute("PATCH "+r+"/actions/variables/{name}", g.updateVariable),
		newAPIRoute("POST /graphql", g.graphql),
		newAPIRoute("POST /api/graphql", g.graphql),
	}
}

// match finds the route for a request path given escaped, segment by
// segment, so an escaped "/" inside a branch name stays one segment.
func (g *GitHub) match(method, escapedPath string) (apiRoute, map[string]string, bool) {
	g.mu.Lock()
	routes := g.routes
	g.mu.Unlock()
	return matchRoute(routes, method, escapedPath)
}

func matchRoute(routes []apiRoute, method, escapedPath string) (apiRoute, map[string]string, bool) {
	segs := strings.Split(strings.Trim(escapedPath, "/"), "/")
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return apiRoute{}, nil, false
		}
		segs[i] = u
	}
	for _, rt := range routes {
		if rt.method != method {
			continue
		}
		if params, ok := matchSegs(rt.segs, segs); ok {
			return rt, params, true
		}
	}
	return apiRoute{}, nil, false
}

// matchSegs matches path segments against a pattern. A "{name...}"
// segment takes what is left of the path up to the literal segments that
// follow it in the pattern, at least one segment.
func matchSegs(pattern, segs []string) (map[string]string, bool) {
	params := make(map[string]string)
	for i, p := range pattern {
		if name, ok := strings.CutSuffix(strings.Trim(p, "{}"), "..."); ok && strings.HasPrefix(p, "{") {
			tail := pattern[i+1:]
			end := len(segs) - len(tail)
			if end <= i || !slices.Equal(segs[end:], tail) {
				return nil, false
			}
			params[name] = strings.Join(segs[i:end], "/")
			return params, true
		}
		if i >= len(segs) || segs[i] == "" {
			return nil, false
		}
		if strings.HasPrefix(p, "{") {
			params[strings.Trim(p, "{}")] = segs[i]
		} else if p != segs[i] {
			return nil, false
		}
	}
	return params, len(pattern) == len(segs)
}

func (g *GitHub) serveAPI(w http.ResponseWriter, r *http.Request) {
	escaped := r.URL.EscapedPath()
	if rest, ok := strings.CutPrefix(escaped, "/api/v3"); ok && (rest == "" || rest[0] == '/') {
		escaped = rest
	}
	path, err := url.PathUnescape(escaped)
	if err != nil {
		path = escaped
	}
	body, readErr := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	login, present := g.authenticate(r.Header.Get("Authorization"))
	i := g.record(Request{
		Method: r.Method, Path: path, Query: r.URL.Query(),
		Header: r.Header.Clone(), Body: body, Login: login,
	})
	sw := &statusWriter{ResponseWriter: w}
	defer func() { g.setStatus(i, sw.status) }()
	g.setAPIHeaders(sw.Header())
	c := &apiCall{g: g, w: sw, r: r, login: login, body: body}
	if status := g.outageStatus(path); status != 0 {
		c.fail(status, http.StatusText(status))
		return
	}
	if readErr == nil && g.serveOwnAuthAPI(c, escaped) {
		return
	}
	switch {
	case readErr != nil:
		c.fail(http.StatusBadRequest, "Problems reading the request body")
		return
	case login == "" && present:
		c.fail(http.StatusUnauthorized, "Bad credentials")
		return
	case login == "":
		c.fail(http.StatusUnauthorized, "Requires authentication")
		return
	}
	rt, params, ok := g.match(r.Method, escaped)
	if !ok {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	c.params = params
	if owner, ok := params["owner"]; ok {
		repo := g.repo(owner, params["repo"])
		if repo == nil || !repo.can(login, permRead) {
			c.fail(http.StatusNotFound, "Not Found")
			return
		}
		c.repo = repo
	}
	rt.handle(c)
}

// setAPIHeaders sets the headers every GitHub API answer carries, with a
// rate limit far from exhausted so clients never wait.
func (g *GitHub) setAPIHeaders(h http.Header) {
	g.mu.Lock()
	g.apiCalls++
	n := g.apiCalls
	g.mu.Unlock()
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("C0DE:%04X:%06X:%06X:%08X", n%0xFFFF, n, n*7, time.Now().Unix()))
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(5000-n, 1)))
	h.Set("X-RateLimit-Used", strconv.Itoa(min(n, 4999)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

func (c *apiCall) json(status int, v any) { writeJSON(c.w, status, v) }

// fail answers with GitHub's error body.
func (c *apiCall) fail(status int, message string) {
	c.json(status, apiError{Message: message, DocumentationURL: githubDocs, Status: strconv.Itoa(status)})
}

// invalid answers 422 "Validation Failed" with field errors.
func (c *apiCall) invalid(errs ...fieldError) {
	c.json(http.StatusUnprocessableEntity, apiError{
		Message: "Validation Failed", Errors: errs,
		DocumentationURL: githubDocs, Status: "422",
	})
}

// forbid answers 403 as GitHub does for a token lacking a permission.
func (c *apiCall) forbid() {
	c.fail(http.StatusForbidden, "Resource not accessible by integration")
}

// decode reads the JSON body into v, answering 400 when it is not JSON.
func (c *apiCall) decode(v any) bool {
	if err := json.Unmarshal(c.body, v); err != nil {
		c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// number parses the {number} parameter, answering 404 when it is not one.
func (c *apiCall) number() (int, bool) {
	n, err := strconv.Atoi(c.params["number"])
	if err != nil || n <= 0 {
		c.fail(http.StatusNotFound, "Not Found")
		return 0, false
	}
	return n, true
}

// query returns a query parameter.
func (c *apiCall) query(name string) string { return c.r.URL.Query().Get(name) }

// since parses the "since" query parameter (zero when absent).
func (c *apiCall) since() (time.Time, bool) {
	s := c.query("since")
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		c.invalid(fieldError{Resource: "Search", Field: "since", Code: "invalid"})
		return time.Time{}, false
	}
	return t, true
}

// paginate returns the page of items that page and per_page ask for
// (default 30, at most 100 per page) and sets the Link header.
func paginate[T any](c *apiCall, items []T) []T {
	lo, hi := c.page(len(items))
	return append(make([]T, 0, hi-lo), items[lo:hi]...)
}

// page sets the Link header of a list of n items and returns the bounds
// of the page that page and per_page ask for.
func (c *apiCall) page(n int) (lo, hi int) {
	q := c.r.URL.Query()
	perPage, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page <= 0 {
		page = 1
	}
	last := max((n+perPage-1)/perPage, 1)
	var links []string
	link := func(p int, rel string) {
		q.Set("page", strconv.Itoa(p))
		links = append(links, fmt.Sprintf("<%s%s?%s>; rel=%q", c.g.URL, c.r.URL.EscapedPath(), q.Encode(), rel))
	}
	if page > 1 {
		link(min(page-1, last), "prev")
	}
	if page < last {
		link(page+1, "next")
		link(last, "last")
	}
	if page > 1 {
		link(1, "first")
	}
	if len(links) > 0 {
		c.w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((page-1)*perPage, n)
	return lo, min(lo+perPage, n)
}
