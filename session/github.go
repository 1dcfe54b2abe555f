package session

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/status"
)

// githubRepo is a repository on GitHub. Clones and pushes authenticate with
// the client's header, passed to git through its environment.
type githubRepo struct {
	client *gh.Client
	repo   *gh.Repo
	owner  string
	repoNm string
	git    gitRunner // without authentication: see authed
	// pull is the pull request the session lands on, once target found it.
	pull *gh.PullRequest
}

func openGitHubRepo(ctx context.Context, g gitRunner, client *gh.Client, full string) (*githubRepo, error) {
	owner, name, err := gh.ParseRepo(full)
	if err != nil {
		return nil, err
	}
	repo, err := client.Repo(ctx, owner, name)
	if err != nil {
		return nil, err
	}
	return &githubRepo{client: client, repo: repo, owner: owner, repoNm: name, git: g}, nil
}

// authed is the git runner with the authentication header of a token
// valid now: asked for at each clone and push, so a session that outlives
// one installation token still lands.
func (r *githubRepo) authed(ctx context.Context) (gitRunner, error) {
	auth, err := r.client.GitEnv(ctx, r.repo.CloneURL)
	if err != nil {
		return gitRunner{}, err
	}
	return gitRunner{env: append(append([]string{}, r.git.env...), auth...)}, nil
}

func (r *githubRepo) name() string { return r.owner + "/" + r.repoNm }

var shaLike = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// target decides where the session starts and lands: on an open pull
// request when asked for one (--base naming its head branch, or a pull
// request number), on the open draft core already made for the same issue,
// else on a new branch and a new draft pull request against the base.
func (r *githubRepo) target(ctx context.Context, opts Options, id string) (target, error) {
	var pull *gh.PullRequest
	switch {
	case opts.Goal.Pull != nil && opts.Goal.Pull.Number == opts.Goal.PullRequest:
		// fetched and checked by the caller (resolver)
		return r.pullTarget(opts, opts.Goal.Pull)
	case opts.Goal.PullRequest != 0:
		p, err := r.client.PullRequest(ctx, r.owner, r.repoNm, opts.Goal.PullRequest)
		if err != nil {
			return target{}, err
		}
		if err := LandablePull(p, r.owner, r.repoNm); err != nil {
			return target{}, err
		}
		return r.pullTarget(opts, p)
	case opts.Goal.Base != "" || opts.Goal.Issue != 0:
		open, err := r.client.OpenPullRequests(ctx, r.owner, r.repoNm)
		if err != nil {
			return target{}, err
		}
		pull = r.pullFor(open, opts)
		if pull == nil && opts.Goal.Base != "" {
			if fork := findFork(open, opts.Goal.Base, r.owner, r.repoNm); fork != nil {
				if _, err := r.client.BranchSHA(ctx, r.owner, r.repoNm, opts.Goal.Base); err != nil {
					return target{}, forkError(fork)
				}
			}
		}
	}
	if pull != nil {
		if pull.Fork(r.owner, r.repoNm) {
			return target{}, forkError(pull)
		}
		r.pull = pull
		return target{base: pull.HeadRef, sha: pull.HeadSHA, branch: pull.HeadRef, pull: pull.Number}, r.checkBranch(opts, pull)
	}
	base := opts.Goal.Base
	if base == "" {
		base = r.repo.DefaultBranch
	}
	sha, err := r.client.BranchSHA(ctx, r.owner, r.repoNm, base)
	if err != nil {
		if !shaLike.MatchString(base) {
			return target{}, &ConfigError{Option: "base", Err: err}
		}
		sha = base // a commit; the clone checks that it exists
	}
	branch := opts.Goal.Branch
	if branch == "" {
		branch = status.SessionBranch(id)
	}
	if err := checkBranchName(ctx, r.git, branch); err != nil {
		return target{}, err
	}
	if branch == r.repo.DefaultBranch || branch == base {
		return target{}, optionError("branch", "%s is the base branch: core lands on a branch of its own and opens a pull request", branch)
	}
	return target{base: base, sha: sha, branch: branch}, nil
}

// pullTarget starts and lands the session on an open pull request asked
// for by number: on its head, or, for a fork's, as a review (review.go)
// from its head fetched through this repository.
func (r *githubRepo) pullTarget(opts Options, pull *gh.PullRequest) (target, error) {
	r.pull = pull
	t := target{base: pull.HeadRef, sha: pull.HeadSHA, branch: pull.HeadRef, pull: pull.Number}
	if pull.Fork(r.owner, r.repoNm) {
		t.fetch = fmt.Sprintf("refs/pull/%d/head", pull.Number)
	}
	return t, r.checkBranch(opts, pull)
}

// pullFor finds the open pull request the session should land on: the one
// whose head branch --base names, or the draft core opened for the issue.
func (r *githubRepo) pullFor(open []*gh.PullRequest, opts Options) *gh.PullRequest {
	for _, p := range open {
		if opts.Goal.Base != "" && p.HeadRef == opts.Goal.Base && !p.Fork(r.owner, r.repoNm) {
			return p
		}
	}
	if opts.Goal.Issue != 0 && opts.Goal.Base == "" {
		for _, p := range open {
			if p.Draft && strings.Contains(p.Body, status.IssueMarker(opts.Goal.Issue)) && !p.Fork(r.owner, r.repoNm) {
				return p
			}
		}
	}
	return nil
}

// checkBranch refuses a --branch other than the pull request's head.
func (r *githubRepo) checkBranch(opts Options, pull *gh.PullRequest) error {
	if opts.Goal.Branch != "" && opts.Goal.Branch != pull.HeadRef {
		return optionError("branch", "%s: the work lands on pull request #%d, whose head is %s", opts.Goal.Branch, pull.Number, pull.HeadRef)
	}
	return nil
}

// LandablePull refuses a pull request core cannot land on: a closed one.
// A fork's is landable, as a review with suggested changes: core never
// pushes to a fork.
func LandablePull(p *gh.PullRequest, owner, repo string) error {
	if p.State != "open" {
		return &ConfigError{Err: fmt.Errorf("pull request #%d of %s/%s is %s: core lands only on open pull requests", p.Number, owner, repo, p.State)}
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

func (r *githubRepo) issue(ctx context.Context, number int, before time.Time) (string, error) {
	is, err := r.client.Issue(ctx, r.owner, r.repoNm, number, before)
	if err != nil {
		return "", err
	}
	return is.Instruction(), nil
}

// clone makes a partial clone (blobs fetched as needed) of the repository
// from the clone URL the API reported.
func (r *githubRepo) clone(ctx context.Context, dest string, t target) error {
	g, err := r.authed(ctx)
	if err != nil {
		return err
	}
	return cloneAt(ctx, g, r.repo.CloneURL, r.name(), dest, t, "--filter=blob:none")
}

// FileIssue files an issue in the repository, for the file_issue tool.
func (r *githubRepo) FileIssue(ctx context.Context, title, body string) (string, error) {
	return r.client.FileIssue(ctx, r.owner, r.repoNm, title, body)
}
