package land

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/status"
)

// Repo is a repository on GitHub. Clones and pushes authenticate with
// the client's header, passed to git through its environment.
type Repo struct {
	client *gh.Client
	repo   *gh.Repo
	owner  string
	repoNm string
	git    Git // without authentication: see authed
	// pull is the pull request the session lands on, once target found it.
	pull *gh.PullRequest
}

// Open opens the repository full (owner/name) on GitHub; g runs git for it.
func Open(ctx context.Context, g Git, client *gh.Client, full string) (*Repo, error) {
	owner, name, err := gh.ParseRepo(full)
	if err != nil {
		return nil, err
	}
	repo, err := client.Repo(ctx, owner, name)
	if err != nil {
		return nil, err
	}
	return &Repo{client: client, repo: repo, owner: owner, repoNm: name, git: g}, nil
}

// authed is the git runner with the authentication header of a token
// valid now: asked for at each clone and push, so a session that outlives
// one installation token still lands.
func (r *Repo) authed(ctx context.Context) (gitRunner, error) {
	auth, err := r.AuthEnv(ctx)
	if err != nil {
		return gitRunner{}, err
	}
	return gitRunner{git: r.git, env: auth}, nil
}

// AuthEnv is the environment that authenticates git with a token valid
// now, for a clone or a push.
func (r *Repo) AuthEnv(ctx context.Context) ([]string, error) {
	return r.client.GitEnv(ctx, r.repo.CloneURL)
}

// Name is the repository as the record shows it: owner/name.
func (r *Repo) Name() string { return r.owner + "/" + r.repoNm }

var shaLike = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// Target decides where the session starts and lands: on an open pull
// request when asked for one (--base naming its head branch, or a pull
// request number), on the open draft core already made for the same issue,
// else on a new branch and a new draft pull request against the base.
func (r *Repo) Target(ctx context.Context, opts Goal, id string) (Target, error) {
	var pull *gh.PullRequest
	switch {
	case opts.Pull != nil && opts.Pull.Number == opts.PullRequest:
		// fetched and checked by the caller (resolver)
		return r.pullTarget(opts, opts.Pull)
	case opts.PullRequest != 0:
		p, err := r.client.PullRequest(ctx, r.owner, r.repoNm, opts.PullRequest)
		if err != nil {
			return Target{}, err
		}
		if err := LandablePull(p, r.owner, r.repoNm); err != nil {
			return Target{}, err
		}
		return r.pullTarget(opts, p)
	case opts.Base != "" || opts.Issue != 0:
		open, err := r.client.OpenPullRequests(ctx, r.owner, r.repoNm)
		if err != nil {
			return Target{}, err
		}
		pull = r.pullFor(open, opts)
		if pull == nil && opts.Base != "" {
			if fork := findFork(open, opts.Base, r.owner, r.repoNm); fork != nil {
				if _, err := r.client.BranchSHA(ctx, r.owner, r.repoNm, opts.Base); err != nil {
					return Target{}, forkError(fork)
				}
			}
		}
	}
	if pull != nil {
		if pull.Fork(r.owner, r.repoNm) {
			return Target{}, forkError(pull)
		}
		r.pull = pull
		return Target{Base: pull.HeadRef, SHA: pull.HeadSHA, Branch: pull.HeadRef, Pull: pull.Number}, r.checkBranch(opts, pull)
	}
	base := opts.Base
	if base == "" {
		base = r.repo.DefaultBranch
	}
	sha, err := r.client.BranchSHA(ctx, r.owner, r.repoNm, base)
	if err != nil {
		if !shaLike.MatchString(base) {
			return Target{}, &OptionError{Option: "base", Err: err}
		}
		sha = base // a commit; the clone checks that it exists
	}
	branch := opts.Branch
	if branch == "" {
		branch = status.SessionBranch(id)
	}
	if err := checkBranchName(ctx, gitRunner{git: r.git}, branch); err != nil {
		return Target{}, err
	}
	if branch == r.repo.DefaultBranch || branch == base {
		return Target{}, optionError("branch", "%s is the base branch: core lands on a branch of its own and opens a pull request", branch)
	}
	return Target{Base: base, SHA: sha, Branch: branch}, nil
}

// pullTarget starts and lands the session on an open pull request asked
// for by number: on its head, or, for a fork's, as a review (review.go)
// from its head fetched through this repository.
func (r *Repo) pullTarget(opts Goal, pull *gh.PullRequest) (Target, error) {
	r.pull = pull
	t := Target{Base: pull.HeadRef, SHA: pull.HeadSHA, Branch: pull.HeadRef, Pull: pull.Number}
	if pull.Fork(r.owner, r.repoNm) {
		t.Fetch = fmt.Sprintf("refs/pull/%d/head", pull.Number)
	}
	return t, r.checkBranch(opts, pull)
}

// pullFor finds the open pull request the session should land on: the one
// whose head branch --base names, or the draft core opened for the issue.
func (r *Repo) pullFor(open []*gh.PullRequest, opts Goal) *gh.PullRequest {
	for _, p := range open {
		if opts.Base != "" && p.HeadRef == opts.Base && !p.Fork(r.owner, r.repoNm) {
			return p
		}
	}
	if opts.Issue != 0 && opts.Base == "" {
		for _, p := range open {
			if p.Draft && strings.Contains(p.Body, status.IssueMarker(opts.Issue)) && !p.Fork(r.owner, r.repoNm) {
				return p
			}
		}
	}
	return nil
}

// checkBranch refuses a --branch other than the pull request's head.
func (r *Repo) checkBranch(opts Goal, pull *gh.PullRequest) error {
	if opts.Branch != "" && opts.Branch != pull.HeadRef {
		return optionError("branch", "%s: the work lands on pull request #%d, whose head is %s", opts.Branch, pull.Number, pull.HeadRef)
	}
	return nil
}

// LandablePull refuses a pull request core cannot land on: a closed one.
// A fork's is landable, as a review with suggested changes: core never
// pushes to a fork.
func LandablePull(p *gh.PullRequest, owner, repo string) error {
	if p.State != "open" {
		return &OptionError{Err: fmt.Errorf("pull request #%d of %s/%s is %s: core lands only on open pull requests", p.Number, owner, repo, p.State)}
	}
	return nil
}

func findFork(open []*gh.PullRequest, branch, owner, name string) *gh.PullRequest {
	for _, p := range open {
		if p.HeadRef == branch && p.Fork(owner, name) {
			return p
		}
	}
	return nil
}

func forkError(p *gh.PullRequest) error {
	return fmt.Errorf("%s is the branch of pull request #%d, which comes from the fork %s: core cannot push to a fork's branch (/core fix on the pull request, through the Action or the bot, reviews it with suggested changes instead)", p.HeadRef, p.Number, p.HeadRepo)
}

// Issue renders issue number as a goal, leaving out what changed after
// before.
func (r *Repo) Issue(ctx context.Context, number int, before time.Time) (string, error) {
	is, err := r.client.Issue(ctx, r.owner, r.repoNm, number, before)
	if err != nil {
		return "", err
	}
	return is.Instruction(), nil
}

// Clone makes a partial clone (blobs fetched as needed) of the repository
// from the clone URL the API reported.
func (r *Repo) Clone(ctx context.Context, dest string, t Target) error {
	g, err := r.authed(ctx)
	if err != nil {
		return err
	}
	return cloneAt(ctx, g, r.repo.CloneURL, r.Name(), dest, t, "--filter=blob:none")
}

// FileIssue files an issue in the repository, for the file_issue tool.
func (r *Repo) FileIssue(ctx context.Context, title, body string) (string, error) {
	return r.client.FileIssue(ctx, r.owner, r.repoNm, title, body)
}

// Question asks what landing the work of a session on pull request pull
// (0 for none) and branch will really do here.
func (r *Repo) Question(pull int, branch string) string {
	if r.pull != nil && r.pull.Number == pull && r.pull.Fork(r.owner, r.repoNm) {
		return fmt.Sprintf("post the work as a review with suggested changes on pull request #%d (from the fork %s: nothing is pushed)? [y/N] ", pull, r.pull.HeadRepo)
	}
	if pull != 0 {
		return fmt.Sprintf("commit and push onto pull request #%d (%s)? [y/N] ", pull, branch)
	}
	return fmt.Sprintf("commit, push %s and open a draft pull request? [y/N] ", branch)
}
