package ghfake

import (
	"context"
	"fmt"
	"strings"

	"github.com/coreagent/core/internal/testkit/ghfake/checks"
)

// CheckRun is a check run on a commit, as a CI system reports it; package
// checks keeps them and serves their endpoints.
type CheckRun = checks.Run

// Annotation is a check run's note on lines of a file.
type Annotation = checks.Annotation

// AddCheckRun adds a check run to owner/repo and returns its id.
func (g *GitHub) AddCheckRun(owner, repo string, cr CheckRun) (int64, error) {
	r := g.repo(owner, repo)
	if r == nil {
		return 0, fmt.Errorf("add check run to %s/%s: no such repository", owner, repo)
	}
	id, err := g.checks.Add(r.checksRepo(""), cr)
	if err != nil {
		return 0, fmt.Errorf("add check run %q to %s/%s: %w", cr.Name, owner, repo, err)
	}
	return id, nil
}

// CheckRuns returns the check runs of owner/repo, oldest first.
func (g *GitHub) CheckRuns(owner, repo string) []CheckRun {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	return g.checks.Runs(r.dir)
}

// newChecks is the double's check runs, on its git, its ids and its Apps.
func (g *GitHub) newChecks() *checks.Server {
	return checks.New(checks.Host{
		Git: func(ctx context.Context, dir string, args ...string) (string, error) {
			return g.runGit(ctx, dir, nil, args...)
		},
		Resolve: g.resolveCommit, NextID: g.NextID,
		App: func(login, created string) any { return g.wireCheckApp(login, created) },
	})
}

// checkRoutes are the check runs' endpoints, served by package checks on
// the repository a request names.
func (g *GitHub) checkRoutes() []apiRoute {
	var out []apiRoute
	for _, rt := range g.checks.Routes() {
		out = append(out, newAPIRoute(rt.Pattern, func(c *apiCall) { rt.Handle(&Call{c: c}, c.repo.checksRepo(c.login)) }))
	}
	return out
}

// checksRepo is the repository as package checks needs it, asked by login.
func (r *Repo) checksRepo(login string) checks.Repo {
	return checks.Repo{Dir: r.dir, APIURL: r.apiURL(), HTMLURL: r.HTMLURL(), Login: login}
}

// WireApp is a GitHub App as GitHub sends it.
type WireApp struct {
	ID          int64             `json:"id"`
	Slug        string            `json:"slug"`
	NodeID      string            `json:"node_id"`
	Owner       *WireUser         `json:"owner"`
	Name        string            `json:"name"`
	ClientID    string            `json:"client_id"`
	Description *string           `json:"description"`
	ExternalURL string            `json:"external_url"`
	HTMLURL     string            `json:"html_url"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
	Permissions map[string]string `json:"permissions"`
	Events      []string          `json:"events"`
}

// actionsAppID is the id of the GitHub Actions app on github.com, which
// reports the check runs of workflow jobs.
const actionsAppID = 15368

// actionsBot is the login of a workflow's GITHUB_TOKEN.
const actionsBot = "github-actions[bot]"

// wireCheckApp is the App that reports a check run: GitHub Actions, or
// the App whose bot login made it.
func (g *GitHub) wireCheckApp(login, created string) WireApp {
	id, slug, name := int64(actionsAppID), "github-actions", "GitHub Actions"
	if login != "" && login != actionsBot {
		slug = strings.TrimSuffix(login, "[bot]")
		id, name = g.accountID(login), slug
	}
	return WireApp{
		ID: id, Slug: slug, NodeID: nodeID("A", id),
		Name: name, HTMLURL: g.URL + "/apps/" + slug,
		Owner: ptr(g.wireUser("github")), CreatedAt: created, UpdatedAt: created,
		Permissions: map[string]string{"checks": "write", "contents": "write", "metadata": "read"},
		Events:      []string{},
	}
}

func ptr[T any](v T) *T { return &v }
