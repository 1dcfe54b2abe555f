package ghfake

import (
	"maps"
	"net/http"
	"strings"
)

// apiURL is the repository's REST URL.
func (r *Repo) apiURL() string { return r.g.APIURL() + "/repos/" + r.FullName() }

// wireLocked is the repository as GitHub sends it, with the permissions of
// viewer (none when empty) and, when deep, a fork's parent and source.
// Callers hold g.mu.
func (r *Repo) wireLocked(viewer string, deep bool) *wireRepo {
	visibility := "public"
	if r.private {
		visibility = "private"
	}
	ts := wireTime(r.created)
	w := &wireRepo{
		ID: r.id, NodeID: nodeID("R", r.id), Name: r.name, FullName: r.FullName(),
		Owner: r.g.wireUser(r.owner), Private: r.private, Visibility: visibility,
		Fork: r.parent != nil, DefaultBranch: r.defaultBranch,
		URL: r.apiURL(), HTMLURL: r.HTMLURL(), CloneURL: r.CloneURL(),
		CreatedAt: ts, UpdatedAt: ts, PushedAt: ts,
	}
	if viewer != "" {
		perms := permsOf(r.rankLocked(viewer))
		w.Permissions = &perms
	}
	if deep && r.parent != nil {
		w.Parent = r.parent.wireLocked("", false)
		src := r.parent
		for src.parent != nil {
			src = src.parent
		}
		w.Source = src.wireLocked("", false)
	}
	return w
}

func permsOf(rank int) wirePerms {
	return wirePerms{
		Admin: rank >= permAdmin, Maintain: rank >= permMaintain, Push: rank >= permWrite,
		Triage: rank >= permTriage, Pull: rank >= permRead,
	}
}

// GET /repos/{owner}/{repo}
func (g *GitHub) getRepo(c *apiCall) {
	g.mu.Lock()
	w := c.repo.wireLocked(c.login, true)
	g.mu.Unlock()
	c.json(http.StatusOK, w)
}

// GET /repos/{owner}/{repo}/branches/{branch}
func (g *GitHub) getBranch(c *apiCall) {
	branch := c.params["branch"]
	sha, ok, err := g.branchSHA(c.r.Context(), c.repo.dir, branch)
	switch {
	case err != nil:
		c.fail(http.StatusInternalServerError, err.Error())
	case !ok:
		c.fail(http.StatusNotFound, "Branch not found")
	default:
		c.json(http.StatusOK, wireBranch{
			Name:   branch,
			Commit: wireBranchCommit{SHA: sha, URL: c.repo.apiURL() + "/commits/" + sha},
		})
	}
}

// GET /repos/{owner}/{repo}/collaborators/{user}/permission answers with
// the legacy permission ("admin", "write", "read" or "none": maintain reads
// as write and triage as read, as on GitHub) and the exact role_name, also
// inside the user object, where go-github reads it.
func (g *GitHub) getPermission(c *apiCall) {
	user := c.params["user"]
	g.mu.Lock()
	role := c.repo.roleLocked(user)
	rank := c.repo.rankLocked(user)
	g.mu.Unlock()
	legacy := role
	switch role {
	case "maintain":
		legacy = "write"
	case "triage":
		legacy = "read"
	}
	c.json(http.StatusOK, wirePermission{Permission: legacy, RoleName: role, User: wireCollaborator{
		WireUser: g.wireUser(user), Permissions: permsOf(rank), RoleName: role,
	}})
}

// POST /repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches needs
// write permission, a branch ref, and a workflow file
// .github/workflows/{workflow} on it that has a workflow_dispatch trigger.
func (g *GitHub) dispatchWorkflow(c *apiCall) {
	if !c.repo.can(c.login, permWrite) {
		c.forbid()
		return
	}
	var in struct {
		Ref    string         `json:"ref"`
		Inputs map[string]any `json:"inputs"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Ref == "" {
		c.invalid(fieldError{Resource: "WorkflowDispatch", Field: "ref", Code: "missing_field"})
		return
	}
	workflow := c.params["workflow"]
	branch := strings.TrimPrefix(in.Ref, "refs/heads/")
	ctx := c.r.Context()
	if _, ok, err := g.branchSHA(ctx, c.repo.dir, branch); err != nil || !ok {
		c.fail(http.StatusUnprocessableEntity, "No ref found for: "+in.Ref)
		return
	}
	content, ok, err := g.fileAt(ctx, c.repo.dir, branch, ".github/workflows/"+workflow)
	switch {
	case err != nil:
		c.fail(http.StatusInternalServerError, err.Error())
		return
	case !ok:
		c.fail(http.StatusNotFound, "Not Found")
		return
	case !strings.Contains(content, "workflow_dispatch"):
		c.fail(http.StatusUnprocessableEntity, "Workflow does not have 'workflow_dispatch' trigger")
		return
	}
	g.mu.Lock()
	c.repo.dispatches = append(c.repo.dispatches, Dispatch{
		Workflow: workflow, Ref: in.Ref, Inputs: maps.Clone(in.Inputs), User: c.login,
	})
	g.mu.Unlock()
	c.w.WriteHeader(http.StatusNoContent)
}
