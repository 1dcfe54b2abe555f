package ghfake

import (
	"net/http"
	"strings"
)

// POST /repos/{owner}/{repo}/pulls answers 422 with GitHub's validation
// errors when a field is missing, the base or head branch does not exist,
// a same-repository head has no commits the base lacks, or an open pull
// request for the same head and base exists.
func (g *GitHub) createPull(c *apiCall) {
	var in struct {
		Title    string `json:"title"`
		Body     string `json:"body"`
		Head     string `json:"head"`
		HeadRepo string `json:"head_repo"`
		Base     string `json:"base"`
		Draft    bool   `json:"draft"`
	}
	if !c.decode(&in) {
		return
	}
	c.g.mu.Lock()
	noPulls := c.repo.actionsNoPulls
	c.g.mu.Unlock()
	if noPulls && c.login == actionsBot {
		c.fail(http.StatusForbidden, "GitHub Actions is not permitted to create or approve pull requests.")
		return
	}
	var missing []fieldError
	for _, f := range [][2]string{{"base", in.Base}, {"head", in.Head}, {"title", in.Title}} {
		if f[1] == "" {
			missing = append(missing, fieldError{Resource: "PullRequest", Field: f[0], Code: "missing_field"})
		}
	}
	if len(missing) > 0 {
		c.invalid(missing...)
		return
	}
	ctx := c.r.Context()
	baseSHA, ok, err := g.branchSHA(ctx, c.repo.dir, in.Base)
	if err != nil || !ok {
		c.invalid(fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
		return
	}
	headRepo, ref := g.headRepo(c.repo, in.Head, in.HeadRepo)
	var headSHA string
	if headRepo != nil {
		headSHA, ok, err = g.branchSHA(ctx, headRepo.dir, ref)
	}
	if headRepo == nil || err != nil || !ok {
		c.invalid(fieldError{Resource: "PullRequest", Field: "head", Code: "invalid"})
		return
	}
	label := headRepo.owner + ":" + ref
	if headRepo == c.repo {
		ahead, err := g.runGit(ctx, c.repo.dir, nil, "rev-list", "--count", baseSHA+".."+headSHA)
		if err != nil {
			c.fail(http.StatusInternalServerError, err.Error())
			return
		}
		if ahead == "0" {
			c.invalid(fieldError{Resource: "PullRequest", Code: "custom", Message: "No commits between " + in.Base + " and " + ref})
			return
		}
	}
	g.mu.Lock()
	for _, is := range c.repo.issues {
		if p := is.pull; p != nil && is.State == "open" && p.headRepo == headRepo && p.head == ref && p.base == in.Base {
			g.mu.Unlock()
			c.invalid(fieldError{Resource: "PullRequest", Code: "custom", Message: "A pull request already exists for " + label + "."})
			return
		}
	}
	is := c.repo.addIssueLocked(
		Issue{Title: in.Title, Body: in.Body, User: c.login, State: "open"},
		&pullState{head: ref, headRepo: headRepo, base: in.Base, draft: in.Draft, headSHA: headSHA},
	)
	g.mu.Unlock()
	c.answerPull(http.StatusCreated, is)
}

// headRepo resolves a pull request head, "branch" or "owner:branch", to
// the repository holding the branch: base itself, or owner's repository in
// base's fork network (named headRepoName when given).
func (g *GitHub) headRepo(base *Repo, head, headRepoName string) (*Repo, string) {
	owner, ref, cross := strings.Cut(head, ":")
	if !cross {
		return base, head
	}
	if strings.EqualFold(owner, base.owner) && headRepoName == "" {
		return base, ref
	}
	if headRepoName != "" {
		if r := g.repo(owner, headRepoName); r != nil && r.network() == base.network() {
			return r, ref
		}
		return nil, ref
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.repos {
		if strings.EqualFold(r.owner, owner) && r.network() == base.network() {
			return r, ref
		}
	}
	return nil, ref
}

// network is the root of the repository's fork network.
func (r *Repo) network() *Repo {
	for r.parent != nil {
		r = r.parent
	}
	return r
}
