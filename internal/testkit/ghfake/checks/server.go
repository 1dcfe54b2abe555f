// Package checks is the GitHub double's check runs: those a test adds
// (Add) and those a GitHub App's token makes and updates through the API
// under GitHub's rules (POST and PATCH .../check-runs), listed on a
// commit, read with their annotations, and returned to tests (Runs).
// ghfake serves these routes and keeps thin accessors on its double; this
// package knows nothing of ghfake but the Call it is handed, and keeps its
// runs under its own lock.
package checks

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Call is one API request, as the double serves it (ghfake.Call).
type Call interface {
	Request() *http.Request
	Param(name string) string
	Decode(v any) bool
	JSON(status int, v any)
	Fail(status int, message string)
	Invalid(resource, field, code, message string)
	// Page sets the Link header of a list of n items and returns the
	// bounds of the page that page and per_page ask for.
	Page(n int) (lo, hi int)
}

// Repo is the repository a request names, and who is asking.
type Repo struct {
	Dir             string // the bare repository, which also tells repositories apart
	APIURL, HTMLURL string
	Login           string
}

// Route is one endpoint: its pattern ("POST /repos/{owner}/{repo}/...")
// and its handler.
type Route struct {
	Pattern string
	Handle  func(Call, Repo)
}

// Host is what the double lends the check runs.
type Host struct {
	// Git runs git in the bare repository dir and returns its output,
	// trimmed.
	Git func(ctx context.Context, dir string, args ...string) (string, error)
	// Resolve resolves a branch, tag or SHA to a commit of dir (a full
	// SHA git does not know taken as is); ok is false when there is none.
	Resolve func(ctx context.Context, dir, ref string) (sha string, ok bool, err error)
	// NextID hands out an id from the double's sequence of ids.
	NextID func() int64
	// App is the App a bot login reports as ("" is GitHub Actions), as
	// GitHub sends it, created at created.
	App func(login, created string) any
}

// Server keeps the check runs of the double's repositories.
type Server struct {
	host Host

	mu   sync.Mutex
	runs map[int64]*runState
}

// New returns a Server on what host lends.
func New(host Host) *Server {
	return &Server{host: host, runs: map[int64]*runState{}}
}

// Routes are the endpoints the double adds to its API. They go before
// GET commits/{ref...}, which would take .../check-runs as a ref.
func (s *Server) Routes() []Route {
	const r = "/repos/{owner}/{repo}"
	return []Route{
		{"GET " + r + "/commits/{ref...}/check-runs", s.list},
		{"POST " + r + "/check-runs", s.create},
		{"GET " + r + "/check-runs/{id}", s.get},
		{"PATCH " + r + "/check-runs/{id}", s.update},
		{"GET " + r + "/check-runs/{id}/annotations", s.listAnnotations},
	}
}

// paginate returns the page of items the call asks for.
func paginate[T any](c Call, items []T) []T {
	lo, hi := c.Page(len(items))
	return slices.Clone(items[lo:hi])
}

// now is the double's clock, truncated to GitHub's one-second timestamps.
func now() time.Time { return time.Now().UTC().Truncate(time.Second) }
