package ghfake

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"path/filepath"
	"strings"
)

// maxGitBody bounds what the server reads of a git request body (CGI needs
// it whole: it refuses chunked bodies).
const maxGitBody = 256 << 20

// serveGit serves /git/{owner}/{name}.git/... through git http-backend,
// after GitHub's checks: every request needs a known token (Basic with the
// token as password, Bearer or token), a private repository needs read
// permission (404 otherwise, as GitHub hides it) and a push needs write
// permission (403).
func (g *GitHub) serveGit(w http.ResponseWriter, r *http.Request) {
	login, present := g.authenticate(r.Header.Get("Authorization"))
	i := g.record(Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(),
		Header: r.Header.Clone(), Login: login,
	})
	sw := &statusWriter{ResponseWriter: w}
	defer func() { g.setStatus(i, sw.status) }()
	if login == "" {
		sw.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		msg := "Authentication required"
		if present {
			msg = "Invalid username or token. Password authentication is not supported for Git operations."
		}
		http.Error(sw, msg, http.StatusUnauthorized)
		return
	}
	owner, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/git/"), "/")
	name, sub, _ := strings.Cut(rest, "/")
	name, isGit := strings.CutSuffix(name, ".git")
	repo := g.repo(owner, name)
	if !isGit || repo == nil || !repo.can(login, permRead) {
		http.Error(sw, "Repository not found.", http.StatusNotFound)
		return
	}
	push := sub == "git-receive-pack" || (sub == "info/refs" && r.URL.Query().Get("service") == "git-receive-pack")
	if push && !repo.can(login, permWrite) {
		http.Error(sw, fmt.Sprintf("Permission to %s.git denied to %s.", repo.FullName(), login), http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(sw, r.Body, maxGitBody))
	if err != nil {
		http.Error(sw, "read request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.TransferEncoding = nil
	req.URL.Path = "/git/" + repo.FullName() + ".git/" + sub // the on-disk spelling
	req.URL.RawPath = ""
	req.Header.Del("Authorization") // keep the token out of the CGI environment
	h := &cgi.Handler{
		Path: g.git,
		Args: []string{"http-backend"},
		Root: "/git",
		Dir:  g.root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + filepath.Join(g.root, "repos"),
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=/dev/null",
			"HOME=" + filepath.Join(g.root, "home"),
			"REMOTE_USER=" + login,
		},
		Logger: g.gitLog.logger(),
		Stderr: &g.gitLog,
	}
	h.ServeHTTP(sw, req)
}
