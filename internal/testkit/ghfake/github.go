package ghfake

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit/ghfake/checks"
	"github.com/coreagent/core/internal/testkit/ghfake/gitdata"
)

// GitHub is an in-memory GitHub: a REST API speaking GitHub's wire protocol
// and git smart HTTP served by the real git http-backend from bare
// repositories on disk. See the package documentation for what it serves.
type GitHub struct {
	// URL is the server's base URL without a trailing slash, e.g.
	// "http://127.0.0.1:41234". The REST API answers under URL + "/api/v3"
	// (see APIURL) and at the bare paths; git under URL + "/git/".
	URL string

	root      string // holds repos/ (GIT_PROJECT_ROOT) and home/
	git       string // the git binary
	stop      func()
	closeOnce sync.Once
	gitLog    LockedBuffer // http-backend's stderr and CGI errors

	mu sync.Mutex
	// routes are the API endpoints for authenticated requests, the
	// double's own then HandleAPI's; ownAuthRoutes (HandleOwnAuthAPI) are
	// tried before authentication; web are HandleWeb's pages.
	routes        []apiRoute
	ownAuthRoutes []apiRoute
	web           []func(http.ResponseWriter, *http.Request) bool
	tokens        map[string]string // token -> login
	// expiry is when the tokens that expire (installation tokens) do.
	expiry   map[string]time.Time
	repos    map[string]*Repo // lower-cased "owner/name" -> repo
	requests []Request
	lastID   int64
	apiCalls int
	outage   outage   // what FailAPI set
	ext      extState // review threads, variables
	gitData  *gitdata.Server
	checks   *checks.Server

	// userIDs are the account ids SetUserID gave logins; idMu guards it
	// alone, as wireUser runs with and without mu held.
	idMu    sync.Mutex
	userIDs map[string]int64 // lower-cased login -> id
}

// Request is one recorded API or git request.
type Request struct {
	Method string
	// Path is the URL path with any "/api/v3" prefix removed, so
	// assertions do not depend on how the client was configured; git
	// requests keep their "/git/owner/name.git/..." path.
	Path   string
	Query  url.Values
	Header http.Header
	// Body is the API request body; it is nil for git requests.
	Body []byte
	// Login is the user the request's token authenticated, if any.
	Login string
	// Status is the HTTP status answered; 0 while the request is served.
	Status int
}

// NewGitHub starts an in-memory GitHub on a loopback port, with its bare
// repositories under a test temporary directory; it is closed when the test
// ends. When the test failed, git http-backend's stderr is logged.
func NewGitHub(t testing.TB) *GitHub {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("testkit: GitHub needs git: %v", err)
	}
	g, err := newGitHub(t.TempDir(), gitPath)
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	ts := httptest.NewServer(http.HandlerFunc(g.serveHTTP))
	g.URL = ts.URL
	g.stop = ts.Close
	t.Cleanup(func() {
		g.Close()
		if s := g.gitLog.String(); t.Failed() && s != "" {
			t.Logf("testkit: git http-backend stderr:\n%s", s)
		}
	})
	return g
}

// ServeGitHub starts an in-memory GitHub listening on addr (for example
// "127.0.0.1:0"), for callers without a testing.TB such as testscript
// commands. Its repositories live in a new temporary directory that Close
// removes. It serves until ctx ends or Close is called.
func ServeGitHub(ctx context.Context, addr string) (*GitHub, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("find git for the GitHub double: %w", err)
	}
	dir, err := os.MkdirTemp("", "testkit-github-")
	if err != nil {
		return nil, fmt.Errorf("create GitHub double directory: %w", err)
	}
	g, err := newGitHub(dir, gitPath)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("listen for GitHub double on %s: %w", addr, err)
	}
	g.URL = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(g.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		// Serve returns ErrServerClosed after Close; any other error means
		// the listener broke, which clients see as failed connections.
		_ = srv.Serve(ln)
	}()
	g.stop = func() {
		// Let git processes answering in-flight requests finish before their
		// repositories go away; Close cuts off whatever is left.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = srv.Close()
		<-served
		_ = os.RemoveAll(dir)
	}
	context.AfterFunc(ctx, g.Close)
	return g, nil
}

func newGitHub(root, gitPath string) (*GitHub, error) {
	for _, d := range []string{"repos", "home"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			return nil, fmt.Errorf("create GitHub double directory: %w", err)
		}
	}
	g := &GitHub{
		root:   root,
		git:    gitPath,
		tokens: make(map[string]string),
		expiry: make(map[string]time.Time),
		repos:  make(map[string]*Repo),
	}
	g.gitData = gitdata.New(gitPath, filepath.Join(root, "home"), g.gitEnv)
	g.checks = g.newChecks()
	g.routes = slices.Concat(g.apiRoutes(), g.checkRoutes(), g.gitDataRoutes())
	return g, nil
}

// Close stops the server. It is safe to call more than once.
func (g *GitHub) Close() {
	g.closeOnce.Do(g.stop)
}

// APIURL is the REST API's base URL, what GITHUB_API_URL holds on an
// Enterprise Server: URL + "/api/v3".
func (g *GitHub) APIURL() string { return g.URL + "/api/v3" }

// AddToken makes token authenticate login, on the API and over git. Logins
// ending in "[bot]" are reported with type "Bot".
func (g *GitHub) AddToken(token, login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens[token] = login
}

// Requests returns every API and git request received so far, in arrival
// order. The result is a copy.
func (g *GitHub) Requests() []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Request, len(g.requests))
	for i, r := range g.requests {
		r.Query = cloneValues(r.Query)
		r.Header = r.Header.Clone()
		r.Body = slices.Clone(r.Body)
		out[i] = r
	}
	return out
}

func (g *GitHub) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/git/") {
		g.serveGit(w, r)
		return
	}
	if g.serveWeb(w, r) {
		return
	}
	g.serveAPI(w, r)
}

// outage is an API outage FailAPI set: every request whose path (without
// /api/v3) starts with one of paths, or every request when there are
// none, answers status.
type outage struct {
	status int
	paths  []string
}

// FailAPI makes the later API requests (REST, GraphQL, the Apps API)
// answer status, as GitHub does in an outage (500, 502, 503), with its
// usual error body: all of them, or only those whose path (without
// /api/v3) starts with one of paths, as when one part of GitHub is down.
// git over HTTP still works. FailAPI(0) ends the outage. The requests are
// recorded as usual.
func (g *GitHub) FailAPI(status int, paths ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.outage = outage{status: status, paths: paths}
}

// outageStatus is the status FailAPI set for a request to path, or 0.
func (g *GitHub) outageStatus(path string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.outage.paths) == 0 {
		return g.outage.status
	}
	for _, p := range g.outage.paths {
		if strings.HasPrefix(path, p) {
			return g.outage.status
		}
	}
	return 0
}

// record appends a request to the log and returns its index.
func (g *GitHub) record(req Request) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, req)
	return len(g.requests) - 1
}

func (g *GitHub) setStatus(i, status int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests[i].Status = status
}

// authenticate returns the login of the token in an Authorization header:
// "Bearer TOKEN", "token TOKEN", or Basic with the token as password (or
// as user name when the password is empty). present reports whether any
// credentials were sent.
func (g *GitHub) authenticate(header string) (login string, present bool) {
	token := tokenFrom(header)
	if token == "" {
		return "", header != ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.expiredLocked(token) {
		return "", true
	}
	return g.tokens[token], true
}

func tokenFrom(header string) string {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok {
		return ""
	}
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(scheme) {
	case "bearer", "token":
		return rest
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return ""
		}
		user, pass, _ := strings.Cut(string(raw), ":")
		if pass == "" {
			return user
		}
		return pass
	}
	return ""
}

// nextID hands out ids from one sequence, so ids of different kinds never
// collide and a test that mixes them up fails. Callers hold g.mu.
func (g *GitHub) nextID() int64 {
	if g.lastID == 0 {
		g.lastID = 1000000
	}
	g.lastID++
	return g.lastID
}

// now is the double's clock, truncated to GitHub's one-second timestamps.
func ghNow() time.Time { return time.Now().UTC().Truncate(time.Second) }
