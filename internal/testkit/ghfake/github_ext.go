package ghfake

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/coreagent/core/internal/testkit/ghfake/gitdata"
)

// The extension point: a double of another part of GitHub built on this one
// (the Apps side: apps, installations, their tokens and OAuth flows) adds
// its API endpoints and web pages through HandleAPI, HandleOwnAuthAPI and
// HandleWeb, and serves them with a Call.

// Call is one API request an extension's endpoint serves.
type Call struct{ c *apiCall }

// Request is the HTTP request.
func (c *Call) Request() *http.Request { return c.c.r }

// Param is a path parameter ("{name}" in the endpoint's pattern).
func (c *Call) Param(name string) string { return c.c.params[name] }

// Body is the request body, read whole.
func (c *Call) Body() []byte { return c.c.body }

// Login is the user the request's token authenticated, if any.
func (c *Call) Login() string { return c.c.login }

// Token is the token of the request's Authorization header, if any.
func (c *Call) Token() string { return tokenFrom(c.c.r.Header.Get("Authorization")) }

// JSON answers status with v as JSON.
func (c *Call) JSON(status int, v any) { c.c.json(status, v) }

// Fail answers status with GitHub's error body.
func (c *Call) Fail(status int, message string) { c.c.fail(status, message) }

// Invalid answers 422 "Validation Failed" with one field error.
func (c *Call) Invalid(resource, field, code, message string) {
	c.c.invalid(fieldError{Resource: resource, Field: field, Code: code, Message: message})
}

// Forbid answers 403 as GitHub does for a token lacking a permission.
func (c *Call) Forbid() { c.c.forbid() }

// Decode reads the JSON body into v, answering 400 when it is not JSON.
func (c *Call) Decode(v any) bool { return c.c.decode(v) }

// Paginate returns the page of items that the page and per_page query
// parameters ask for and sets the Link header, as GitHub's lists do.
func Paginate[T any](c *Call, items []T) []T { return paginate(c.c, items) }

// Page sets the Link header of a list of n items, as Paginate does, and
// returns the bounds of the page asked for.
func (c *Call) Page(n int) (lo, hi int) { return c.c.page(n) }

// HandleAPI adds an API endpoint ("GET /path/{param}") for authenticated
// requests; the double answers the others 401 as for its own endpoints.
func (g *GitHub) HandleAPI(pattern string, h func(*Call)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.routes = append(g.routes, extRoute(pattern, h))
}

// HandleOwnAuthAPI adds an API endpoint served before the double
// authenticates the request: h authenticates it itself (an App's JWT, a
// manifest code). An outage set by FailAPI still answers first.
func (g *GitHub) HandleOwnAuthAPI(pattern string, h func(*Call)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ownAuthRoutes = append(g.ownAuthRoutes, extRoute(pattern, h))
}

// HandleWeb adds web pages on the web host (URL, not APIURL): h serves a
// request and reports whether it was for one of its pages.
func (g *GitHub) HandleWeb(h func(http.ResponseWriter, *http.Request) bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.web = append(g.web, h)
}

// NextID hands out an id from the sequence of the double's own ids, so
// an extension's ids never collide with them.
func (g *GitHub) NextID() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.nextID()
}

// Record adds a request an extension's web page served to the log that
// Requests returns.
func (g *GitHub) Record(req Request) { g.record(req) }

// User is login as GitHub's API sends a user.
func (g *GitHub) User(login string) WireUser { return g.wireUser(login) }

// SeesAccount reports whether login is account or has a role on one of
// its repositories.
func (g *GitHub) SeesAccount(login, account string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seesAccountLocked(login, account)
}

// ReposOf lists owner's repositories, by name.
func (g *GitHub) ReposOf(owner string) []*Repo {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*Repo
	for _, r := range g.repos {
		if strings.EqualFold(r.owner, owner) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Repo) int { return strings.Compare(a.name, b.name) })
	return out
}

// Name is the repository's name, without its owner.
func (r *Repo) Name() string { return r.name }

// ID is the repository's database id.
func (r *Repo) ID() int64 { return r.id }

// RaiseRole gives login role on the repository unless login already has
// that role or a higher one.
func (r *Repo) RaiseRole(login, role string) error {
	rank, ok := permRank(role)
	if !ok {
		return fmt.Errorf("raise the role of %s on %s: unknown role %q", login, r.FullName(), role)
	}
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	if r.rankLocked(login) < rank {
		r.perms[strings.ToLower(login)] = role
	}
	return nil
}

// Wire is the repository as GitHub sends it to a viewer with no role, in
// the lists of an installation's repositories.
func (r *Repo) Wire() any {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return r.wireLocked("", false)
}

func extRoute(pattern string, h func(*Call)) apiRoute {
	return newAPIRoute(pattern, func(c *apiCall) { h(&Call{c: c}) })
}

// serveOwnAuthAPI serves the request when it is for an endpoint added with
// HandleOwnAuthAPI, and reports whether it was.
func (g *GitHub) serveOwnAuthAPI(c *apiCall, escapedPath string) bool {
	g.mu.Lock()
	routes := g.ownAuthRoutes
	g.mu.Unlock()
	rt, params, ok := matchRoute(routes, c.r.Method, escapedPath)
	if !ok {
		return false
	}
	c.params = params
	rt.handle(c)
	return true
}

// serveWeb serves the web pages added with HandleWeb, and reports whether
// the request was for one.
func (g *GitHub) serveWeb(w http.ResponseWriter, r *http.Request) bool {
	g.mu.Lock()
	pages := g.web
	g.mu.Unlock()
	for _, h := range pages {
		if h(w, r) {
			return true
		}
	}
	return false
}

// gitDataRoutes are the Git Data API and GET commits/{ref}, served by
// package gitdata on the repository a request names.
func (g *GitHub) gitDataRoutes() []apiRoute {
	var out []apiRoute
	for _, rt := range g.gitData.Routes() {
		out = append(out, newAPIRoute(rt.Pattern, func(c *apiCall) { rt.Handle(&Call{c: c}, g.gitDataRepo(c)) }))
	}
	return out
}

// gitDataRepo is the request's repository as package gitdata needs it.
// GitHub signs the commits an App makes through the API: with an
// installation token (a token that expires) or as a bot (the Action's
// github-actions[bot]), not a user's personal token's.
func (g *GitHub) gitDataRepo(c *apiCall) gitdata.Repo {
	g.mu.Lock()
	_, expires := g.expiry[tokenFrom(c.r.Header.Get("Authorization"))]
	g.mu.Unlock()
	return gitdata.Repo{
		Dir: c.repo.dir, APIURL: c.repo.apiURL(), HTMLURL: c.repo.HTMLURL(), Login: c.login,
		Write: c.repo.can(c.login, permWrite), Signs: expires || strings.HasSuffix(c.login, "[bot]"),
	}
}

// ForbidActionsPulls turns off the repository's setting "Allow GitHub
// Actions to create and approve pull requests": the workflow's token
// (github-actions[bot]) then gets GitHub's 403 when it opens a pull
// request. GitHub has it off for new repositories; the double has it on
// unless a test turns it off.
func (r *Repo) ForbidActionsPulls() {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	r.actionsNoPulls = true
}
