// Package gitdata is the GitHub double's Git Data API (blobs, trees,
// commits, refs) and GET commits/{ref}, served on the double's real bare
// repositories with real git: hash-object, a temporary index for trees,
// update-ref with the old value so that a race is refused. GitHub signs
// the commits an App makes through the API: so does the double, and it
// records each commit's verification ("valid" or "unsigned"; a signature
// pushed with git is "unknown_key"). ghfake serves these routes; this
// package knows nothing of ghfake but the Call it is handed.
package gitdata

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
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
	Forbid()
}

// Repo is the repository a request names, and what its caller may do.
type Repo struct {
	Dir             string // the bare repository
	APIURL, HTMLURL string
	Login           string
	// Write: the caller may push. Signs: GitHub signs the commits the
	// caller makes (an App's installation token or the Action's token).
	Write, Signs bool
}

// Route is one endpoint: its pattern ("POST /repos/{owner}/{repo}/...")
// and its handler.
type Route struct {
	Pattern string
	Handle  func(Call, Repo)
}

// Server serves the Git Data API of the double's repositories.
type Server struct {
	git string // the git binary
	env func(extra ...string) []string
	tmp string // where temporary indexes go

	mu sync.Mutex
	// verifications are what GitHub concluded of the signatures of the
	// commits made through the API, by repository directory and SHA.
	verifications map[string]Verification
	signed        int // the commits signed so far
}

// New returns a Server running git (with the environment env gives)
// and keeping temporary files under tmp.
func New(git, tmp string, env func(extra ...string) []string) *Server {
	return &Server{git: git, tmp: tmp, env: env, verifications: map[string]Verification{}}
}

// Routes are the endpoints the double adds to its API, in the order they
// are tried.
func (s *Server) Routes() []Route {
	const r = "/repos/{owner}/{repo}"
	return []Route{
		{"POST " + r + "/git/blobs", s.createBlob},
		{"GET " + r + "/git/blobs/{sha}", s.getBlob},
		{"POST " + r + "/git/trees", s.createTree},
		{"GET " + r + "/git/trees/{sha}", s.getTree},
		{"POST " + r + "/git/commits", s.createCommit},
		{"GET " + r + "/git/commits/{sha}", s.getGitCommit},
		{"GET " + r + "/git/ref/{ref...}", s.getRef},
		{"POST " + r + "/git/refs", s.createRef},
		{"PATCH " + r + "/git/refs/{ref...}", s.updateRef},
		{"GET " + r + "/commits/{ref...}", s.getRepoCommit},
	}
}

// run runs git in dir with the variables env added and returns its
// standard output as it came.
func (s *Server) run(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, s.git, args...)
	cmd.Dir = dir
	cmd.Env = s.env(env...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// trimmed is run without stdin or extra variables, its output trimmed.
func (s *Server) trimmed(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := s.run(ctx, dir, nil, nil, args...)
	return strings.TrimSpace(out), err
}

// objectIs reports whether sha names an object of type typ in dir.
func (s *Server) objectIs(ctx context.Context, dir, sha, typ string) bool {
	if len(sha) != 40 || strings.Trim(sha, "0123456789abcdef") != "" {
		return false
	}
	out, err := s.trimmed(ctx, dir, "cat-file", "-t", sha)
	return err == nil && out == typ
}

// mayWrite answers 403 unless the caller may push to the repository.
func mayWrite(c Call, r Repo) bool {
	if !r.Write {
		c.Forbid()
		return false
	}
	return true
}

func wireTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
