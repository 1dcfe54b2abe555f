package ghfake

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// AddPull adds a pull request to owner/repo and returns its number. Its
// head branch must exist in HeadRepo (default owner/repo) and its base
// branch (default the default branch) in owner/repo. User defaults to the
// owner.
func (g *GitHub) AddPull(ctx context.Context, owner, repo string, pr Pull) (int, error) {
	base := g.repo(owner, repo)
	if base == nil {
		return 0, fmt.Errorf("add pull request to %s/%s: no such repository", owner, repo)
	}
	headRepo := base
	if pr.HeadRepo != "" {
		o, n, _ := strings.Cut(pr.HeadRepo, "/")
		if headRepo = g.repo(o, n); headRepo == nil {
			return 0, fmt.Errorf("add pull request to %s/%s: head repository %s does not exist", owner, repo, pr.HeadRepo)
		}
	}
	pr.Base = cmp.Or(pr.Base, base.defaultBranch)
	if _, ok, err := g.branchSHA(ctx, base.dir, pr.Base); err != nil || !ok {
		return 0, fmt.Errorf("add pull request to %s/%s: base branch %q does not exist (%v)", owner, repo, pr.Base, err)
	}
	sha, ok, err := g.branchSHA(ctx, headRepo.dir, pr.Head)
	if err != nil || !ok {
		return 0, fmt.Errorf("add pull request to %s/%s: head branch %q does not exist in %s (%v)", owner, repo, pr.Head, headRepo.FullName(), err)
	}
	pr.State = cmp.Or(pr.State, "open")
	if pr.State != "open" && pr.State != "closed" {
		return 0, fmt.Errorf("add pull request to %s/%s: state %q is neither open nor closed", owner, repo, pr.State)
	}
	if pr.Merged && pr.State != "closed" {
		return 0, fmt.Errorf("add pull request to %s/%s: a merged pull request is closed, not %s", owner, repo, pr.State)
	}
	g.mu.Lock()
	is := base.addIssueLocked(Issue{
		Title: pr.Title, Body: pr.Body, User: pr.User, State: pr.State,
		CreatedAt: pr.CreatedAt, UpdatedAt: pr.UpdatedAt,
	}, &pullState{head: pr.Head, headRepo: headRepo, base: pr.Base, draft: pr.Draft, headSHA: sha, refSHA: sha, merged: pr.Merged})
	g.mu.Unlock()
	if err := g.syncPullRef(ctx, base, is.Number, headRepo.dir, sha); err != nil {
		return 0, fmt.Errorf("add pull request to %s/%s: %s: %w", owner, repo, pullRef(is.Number), err)
	}
	return is.Number, nil
}

// pullLocked finds pull request {number}, answering 404 when there is none.
// Callers hold g.mu.
func (c *apiCall) pullLocked() *issueState {
	if n, ok := c.number(); ok {
		if is := c.repo.issues[n]; is != nil && is.pull != nil {
			return is
		}
		c.fail(http.StatusNotFound, "Not Found")
	}
	return nil
}

// refreshPulls reads the current head SHAs of pull requests from git and
// returns the base SHAs, keyed by base branch.
func (g *GitHub) refreshPulls(ctx context.Context, r *Repo, list []*issueState) map[string]string {
	type target struct {
		is                     *issueState
		number                 int
		dir, ref, base, refSHA string
	}
	g.mu.Lock()
	targets := make([]target, len(list))
	for i, is := range list {
		targets[i] = target{is: is, number: is.Number, dir: is.pull.headRepo.dir, ref: is.pull.head, base: is.pull.base, refSHA: is.pull.refSHA}
	}
	g.mu.Unlock()
	bases := make(map[string]string)
	for _, t := range targets {
		if sha, ok, err := g.branchSHA(ctx, t.dir, t.ref); err == nil && ok {
			synced := sha == t.refSHA || g.syncPullRef(ctx, r, t.number, t.dir, sha) == nil
			g.mu.Lock()
			t.is.pull.headSHA = sha
			if synced {
				t.is.pull.refSHA = sha
			}
			g.mu.Unlock()
		}
		if _, done := bases[t.base]; !done {
			bases[t.base], _, _ = g.branchSHA(ctx, r.dir, t.base)
		}
	}
	return bases
}

// wirePullLocked is a pull request as GitHub sends it. Callers hold g.mu.
func (r *Repo) wirePullLocked(is *issueState, baseSHA, viewer string) wirePull {
	p, n := is.pull, strconv.Itoa(is.Number)
	html := r.HTMLURL() + "/pull/" + n
	issue := r.wireIssueLocked(is)
	branch := func(repo *Repo, ref, sha string) wirePullBranch {
		return wirePullBranch{
			Label: repo.owner + ":" + ref, Ref: ref, SHA: sha,
			User: r.g.wireUser(repo.owner), Repo: repo.wireLocked(viewer, false),
		}
	}
	w := wirePull{
		ID: is.id, NodeID: nodeID("PR", is.id), URL: r.apiURL() + "/pulls/" + n, HTMLURL: html,
		DiffURL: html + ".diff", PatchURL: html + ".patch", IssueURL: issue.URL,
		Number: is.Number, State: is.State, Title: is.Title, User: issue.User, Body: issue.Body,
		Labels: issue.Labels, CreatedAt: issue.CreatedAt, UpdatedAt: issue.UpdatedAt,
		ClosedAt: issue.ClosedAt, Draft: p.draft, Merged: p.merged && is.State == "closed",
		Head:              branch(p.headRepo, p.head, p.headSHA),
		Base:              branch(r, p.base, baseSHA),
		AuthorAssociation: issue.AuthorAssociation, Comments: issue.Comments,
	}
	if w.Merged {
		w.MergedAt = issue.ClosedAt
	}
	return w
}

// GET /repos/{owner}/{repo}/pulls filtered by state (default open), head
// ("owner:branch"; without the owner the filter is ignored, as on GitHub)
// and base, sorted by created (default) or updated, newest first unless
// direction=asc.
func (g *GitHub) listPulls(c *apiCall) {
	state := cmp.Or(c.query("state"), "open")
	headOwner, headRef, byHead := strings.Cut(c.query("head"), ":")
	g.mu.Lock()
	var list []*issueState
	for _, is := range c.repo.issues {
		switch {
		case is.pull == nil,
			state != "all" && is.State != state,
			byHead && (!strings.EqualFold(is.pull.headRepo.owner, headOwner) || is.pull.head != headRef),
			c.query("base") != "" && is.pull.base != c.query("base"):
			continue
		}
		list = append(list, is)
	}
	by := c.query("sort")
	if by != "updated" {
		by = "created"
	}
	sortIssues(list, by, c.query("direction"))
	list = paginate(c, list)
	g.mu.Unlock()
	bases := g.refreshPulls(c.r.Context(), c.repo, list)
	g.mu.Lock()
	out := make([]wirePull, 0, len(list))
	for _, is := range list {
		out = append(out, c.repo.wirePullLocked(is, bases[is.pull.base], c.login))
	}
	g.mu.Unlock()
	c.json(http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/pulls/{number}
func (g *GitHub) getPull(c *apiCall) {
	g.mu.Lock()
	is := c.pullLocked()
	g.mu.Unlock()
	if is != nil {
		c.answerPull(http.StatusOK, is)
	}
}

// answerPull refreshes a pull request's SHAs and sends it.
func (c *apiCall) answerPull(status int, is *issueState) {
	bases := c.g.refreshPulls(c.r.Context(), c.repo, []*issueState{is})
	c.g.mu.Lock()
	w := c.repo.wirePullLocked(is, bases[is.pull.base], c.login)
	c.g.mu.Unlock()
	if status == http.StatusCreated {
		c.w.Header().Set("Location", w.URL)
	}
	c.json(status, w)
}

// PATCH /repos/{owner}/{repo}/pulls/{number}: title, body, state and base,
// by the author or a user with write permission.
func (g *GitHub) editPull(c *apiCall) {
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if !c.decode(&in) {
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		c.invalid(fieldError{Resource: "PullRequest", Field: "state", Code: "invalid"})
		return
	}
	if in.Base != nil {
		if _, ok, err := g.branchSHA(c.r.Context(), c.repo.dir, *in.Base); err != nil || !ok {
			c.invalid(fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
			return
		}
	}
	g.mu.Lock()
	is := c.pullLocked()
	if is == nil {
		g.mu.Unlock()
		return
	}
	if !strings.EqualFold(is.User, c.login) && c.repo.rankLocked(c.login) < permWrite {
		g.mu.Unlock()
		c.forbid()
		return
	}
	is.applyEdit(in.Title, in.Body, in.State)
	if in.Base != nil {
		is.pull.base = *in.Base
	}
	g.mu.Unlock()
	c.answerPull(http.StatusOK, is)
}
