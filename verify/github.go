package verify

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/receipt"
)

// CheckName is the check run that carries a contract's receipt on the
// commit that landed.
const CheckName = "core/contract"

// prRef is owner/name#N.
var prRef = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)#([1-9][0-9]{0,9})$`)

// ParsePR reads a pull request named as owner/name#N.
func ParsePR(s string) (full string, number int, err error) {
	m := prRef.FindStringSubmatch(s)
	if m == nil {
		return "", 0, fmt.Errorf("--pr must be owner/name#N, got %q", s)
	}
	n, _ := strconv.Atoi(m[2])
	return m[1], n, nil
}

// FromPR sets o's receipt to the one the core/contract check run on the
// pull request's head carries, and o's hash to the one its summary names:
// a receipt edited after it was posted has another.
func FromPR(ctx context.Context, c *gh.Client, full string, number int, o *Options) error {
	owner, name, err := gh.ParseRepo(full)
	if err != nil {
		return err
	}
	p, err := c.PullRequest(ctx, owner, name, number)
	if err != nil {
		return err
	}
	run, err := c.CheckRunNamed(ctx, owner, name, p.HeadSHA, CheckName)
	if errors.Is(err, gh.ErrNoCheckRun) {
		return refuse("pull request %s#%d has no %s check run on its head %s: core did not land it, or it carried no contract", full, number, CheckName, short(p.HeadSHA))
	}
	if err != nil {
		return err
	}
	data, err := receipt.FromCheckText(run.Text)
	if err != nil {
		return refuse("the %s check run on %s: %w", CheckName, short(p.HeadSHA), err)
	}
	hash, ok := receipt.HashIn(run.Summary)
	if !ok {
		return refuse("the %s check run on %s names no receipt hash in its summary: its receipt cannot be checked against it", CheckName, short(p.HeadSHA))
	}
	o.Receipt = data
	o.Published = append(o.Published, Published{Hash: hash, From: "the " + CheckName + " check run's summary"})
	if o.Repo == "" {
		o.Repo = full
	}
	return nil
}

// PublishedOn is the receipt hash the core/contract check run on commit
// names, when there is one to read.
func PublishedOn(ctx context.Context, c *gh.Client, full, commit string) (Published, bool) {
	owner, name, err := gh.ParseRepo(full)
	if err != nil {
		return Published{}, false
	}
	run, err := c.CheckRunNamed(ctx, owner, name, commit, CheckName)
	if err != nil {
		return Published{}, false
	}
	h, ok := receipt.HashIn(run.Summary)
	return Published{Hash: h, From: "the " + CheckName + " check run on " + short(commit)}, ok
}

// GitHubClone clones owner/name from GitHub with c's token (given to git
// in its environment, never on its command line), as a session's clone
// is made.
func GitHubClone(c *gh.Client, gitEnv []string) func(ctx context.Context, full, dest string) error {
	return func(ctx context.Context, full, dest string) error {
		g, url, err := githubGit(ctx, c, gitEnv, full)
		if err != nil {
			return err
		}
		_, err = g(ctx, "", "clone", "--quiet", "--no-checkout", "--", url, dest)
		return err
	}
}

// GitHubFetch fetches one commit by its hash into ws, a clone of
// owner/name, with c's token: GitHub serves a commit no branch holds while
// a ref (a pull request's head, refs/pull/N/head) still reaches it.
func GitHubFetch(c *gh.Client, gitEnv []string) func(ctx context.Context, full, ws, commit string) error {
	return func(ctx context.Context, full, ws, commit string) error {
		g, url, err := githubGit(ctx, c, gitEnv, full)
		if err != nil {
			return err
		}
		_, err = g(ctx, ws, "fetch", "--quiet", "--no-tags", url, commit)
		return err
	}
}

// githubGit is git with c's token for owner/name, and its clone URL.
func githubGit(ctx context.Context, c *gh.Client, gitEnv []string, full string) (contract.Git, string, error) {
	owner, name, err := gh.ParseRepo(full)
	if err != nil {
		return nil, "", err
	}
	repo, err := c.Repo(ctx, owner, name)
	if err != nil {
		return nil, "", err
	}
	auth, err := c.GitEnv(ctx, repo.CloneURL)
	if err != nil {
		return nil, "", err
	}
	return gitIn(append(append([]string{}, gitEnv...), auth...)), repo.CloneURL, nil
}
