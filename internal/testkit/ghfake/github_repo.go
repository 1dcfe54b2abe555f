package ghfake

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Permission ranks, lowest first.
const (
	permNone = iota
	permRead
	permTriage
	permWrite
	permMaintain
	permAdmin
)

// permRank ranks a role name: "none", "read", "triage", "write", "maintain"
// or "admin".
func permRank(role string) (int, bool) {
	switch role {
	case "none":
		return permNone, true
	case "read":
		return permRead, true
	case "triage":
		return permTriage, true
	case "write":
		return permWrite, true
	case "maintain":
		return permMaintain, true
	case "admin":
		return permAdmin, true
	}
	return 0, false
}

// Repo is a repository of the GitHub double, backed by a bare git
// repository on disk.
type Repo struct {
	g             *GitHub
	id            int64
	owner, name   string
	dir           string
	defaultBranch string
	private       bool
	parent        *Repo
	created       time.Time

	// Guarded by g.mu.
	perms      map[string]string // lower-cased login -> role
	issues     map[int]*issueState
	comments   map[int64]*commentState
	labels     map[string]int64 // label name -> id
	lastNumber int
	dispatches []Dispatch
	cancelled  []int64 // workflow runs cancelled
	// actionsNoPulls: the setting "Allow GitHub Actions to create and
	// approve pull requests" is off (ForbidActionsPulls).
	actionsNoPulls bool
}

// RepoOption configures AddRepo.
type RepoOption func(*repoConfig)

type repoConfig struct {
	defaultBranch string
	private       bool
	parent        string
}

// DefaultBranch sets the default branch (default "main").
func DefaultBranch(name string) RepoOption { return func(c *repoConfig) { c.defaultBranch = name } }

// Private makes the repository private: only tokens whose user has at least
// read permission (see SetPermission) or owns it can see it, over the API
// and over git.
func Private(private bool) RepoOption { return func(c *repoConfig) { c.private = private } }

// ForkOf makes the repository a fork of parent ("owner/name"), which must
// already exist. The fork starts with copies of all of the parent's
// branches, and its default branch is the parent's unless DefaultBranch says
// otherwise.
func ForkOf(parent string) RepoOption { return func(c *repoConfig) { c.parent = parent } }

// AddRepo creates owner/name as a bare git repository whose default branch
// holds one commit with files (path -> content). For a fork, files (if any)
// are committed on top of the default branch copied from the parent. The
// owner has admin permission.
func (g *GitHub) AddRepo(ctx context.Context, owner, name string, files map[string]string, opts ...RepoOption) (*Repo, error) {
	full := owner + "/" + name
	if owner == "" || name == "" || strings.ContainsAny(owner+name, "/\\ ") || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("add repository %q: want owner/name without slashes or spaces", full)
	}
	cfg := repoConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	var parent *Repo
	if cfg.parent != "" {
		o, n, _ := strings.Cut(cfg.parent, "/")
		if parent = g.repo(o, n); parent == nil {
			return nil, fmt.Errorf("add fork %s: parent %s does not exist", full, cfg.parent)
		}
		if cfg.defaultBranch == "" {
			cfg.defaultBranch = parent.defaultBranch
		}
	}
	if cfg.defaultBranch == "" {
		cfg.defaultBranch = "main"
	}
	r := &Repo{
		g: g, owner: owner, name: name, defaultBranch: cfg.defaultBranch,
		private: cfg.private, parent: parent, created: ghNow(),
		dir:   filepath.Join(g.root, "repos", owner, name+".git"),
		perms: make(map[string]string), issues: make(map[int]*issueState),
		comments: make(map[int64]*commentState), labels: make(map[string]int64),
	}
	g.mu.Lock()
	_, exists := g.repos[strings.ToLower(full)]
	if !exists {
		r.id = g.nextID()
		g.repos[strings.ToLower(full)] = r // reserve the name
	}
	g.mu.Unlock()
	if exists {
		return nil, fmt.Errorf("add repository %s: it already exists", full)
	}
	if err := r.initGit(ctx, files); err != nil {
		g.mu.Lock()
		delete(g.repos, strings.ToLower(full))
		g.mu.Unlock()
		return nil, fmt.Errorf("add repository %s: %w", full, err)
	}
	return r, nil
}

// MustAddRepo is AddRepo for tests: it fails the test on error.
func (g *GitHub) MustAddRepo(t testing.TB, owner, name string, files map[string]string, opts ...RepoOption) *Repo {
	t.Helper()
	r, err := g.AddRepo(t.Context(), owner, name, files, opts...)
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	return r
}

func (r *Repo) initGit(ctx context.Context, files map[string]string) error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return fmt.Errorf("create bare repository: %w", err)
	}
	steps := [][]string{
		{"init", "--quiet", "--bare"},
		{"symbolic-ref", "HEAD", "refs/heads/" + r.defaultBranch},
		{"config", "http.receivepack", "true"},
		{"config", "uploadpack.allowFilter", "true"},
		// GitHub serves a commit by its hash while any ref reaches it
		// (a branch, a tag, a pull request's refs/pull/N/head).
		{"config", "uploadpack.allowReachableSHA1InWant", "true"},
	}
	if r.parent != nil {
		steps = append(steps, []string{"fetch", "--quiet", "--no-tags", r.parent.dir, "+refs/heads/*:refs/heads/*"})
	}
	for _, args := range steps {
		if _, err := r.g.runGit(ctx, r.dir, nil, args...); err != nil {
			return err
		}
	}
	if r.parent != nil && len(files) == 0 {
		return nil
	}
	_, err := r.Commit(ctx, r.defaultBranch, "Initial commit", files)
	return err
}

// SetPermission gives login a role on owner/repo: "admin", "maintain",
// "write", "triage", "read" or "none". Without one, the owner is admin and
// everyone else has no role (but can read a public repository).
func (g *GitHub) SetPermission(owner, repo, login, role string) error {
	if _, ok := permRank(role); !ok {
		return fmt.Errorf("set permission of %s on %s/%s: unknown role %q", login, owner, repo, role)
	}
	r := g.repo(owner, repo)
	if r == nil {
		return fmt.Errorf("set permission of %s on %s/%s: no such repository", login, owner, repo)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r.perms[strings.ToLower(login)] = role
	return nil
}

// repo finds a repository by owner and name, ignoring case as GitHub does.
func (g *GitHub) repo(owner, name string) *Repo {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.repos[strings.ToLower(owner+"/"+name)]
}

// FullName is "owner/name".
func (r *Repo) FullName() string { return r.owner + "/" + r.name }

// Dir is the bare repository on disk, for `git -C`.
func (r *Repo) Dir() string { return r.dir }

// CloneURL is the repository's smart HTTP URL: URL + "/git/owner/name.git".
func (r *Repo) CloneURL() string { return r.g.URL + "/git/" + r.FullName() + ".git" }

// HTMLURL is the repository's web URL.
func (r *Repo) HTMLURL() string { return r.g.URL + "/" + r.FullName() }

// DefaultBranch is the repository's default branch.
func (r *Repo) DefaultBranch() string { return r.defaultBranch }

// Commit commits files (path -> content; other files are kept) on branch
// and returns the new commit's SHA. A missing branch is created from the
// default branch, or as a root commit when the repository is empty.
func (r *Repo) Commit(ctx context.Context, branch, message string, files map[string]string) (string, error) {
	parent, ok, err := r.g.branchSHA(ctx, r.dir, branch)
	if err != nil {
		return "", err
	}
	if !ok && branch != r.defaultBranch {
		if parent, _, err = r.g.branchSHA(ctx, r.dir, r.defaultBranch); err != nil {
			return "", err
		}
	}
	sha, err := r.g.commitFiles(ctx, r.dir, branch, parent, message, files)
	if err != nil {
		return "", fmt.Errorf("commit to %s of %s: %w", branch, r.FullName(), err)
	}
	return sha, nil
}

// Head returns the SHA at the tip of branch; ok is false when the branch
// does not exist.
func (r *Repo) Head(ctx context.Context, branch string) (sha string, ok bool, err error) {
	return r.g.branchSHA(ctx, r.dir, branch)
}

// roleLocked is login's role: the one set, "admin" for the owner, or
// "none". Callers hold g.mu.
func (r *Repo) roleLocked(login string) string {
	if role, ok := r.perms[strings.ToLower(login)]; ok {
		return role
	}
	if login != "" && strings.EqualFold(login, r.owner) {
		return "admin"
	}
	return "none"
}

// rankLocked is login's effective permission: its role, and at least read
// on a public repository. Callers hold g.mu.
func (r *Repo) rankLocked(login string) int {
	rank, _ := permRank(r.roleLocked(login))
	if !r.private && login != "" {
		rank = max(rank, permRead)
	}
	return rank
}

// can reports whether login has at least permission perm.
func (r *Repo) can(login string, perm int) bool {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return r.rankLocked(login) >= perm
}
