package ghapps

import (
	"crypto/rand"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// appPermissions are what every app of the double may do on the
// repositories it is installed on.
func appPermissions() map[string]string {
	return map[string]string{
		"actions": "write", "checks": "read", "contents": "write", "issues": "write",
		"metadata": "read", "pull_requests": "write", "statuses": "read", "variables": "read",
	}
}

type wireInstallation struct {
	ID                  int64             `json:"id"`
	Account             ghfake.WireUser   `json:"account"`
	RepositorySelection string            `json:"repository_selection"`
	AccessTokensURL     string            `json:"access_tokens_url"`
	RepositoriesURL     string            `json:"repositories_url"`
	HTMLURL             string            `json:"html_url"`
	AppID               int64             `json:"app_id"`
	AppSlug             string            `json:"app_slug"`
	TargetID            int64             `json:"target_id"`
	TargetType          string            `json:"target_type"`
	Permissions         map[string]string `json:"permissions"`
	Events              []string          `json:"events"`
	CreatedAt           string            `json:"created_at"`
	UpdatedAt           string            `json:"updated_at"`
	SingleFileName      *string           `json:"single_file_name"`
	SuspendedBy         *ghfake.WireUser  `json:"suspended_by"`
	SuspendedAt         *string           `json:"suspended_at"`
}

type wireInstallationToken struct {
	Token               string            `json:"token"`
	ExpiresAt           string            `json:"expires_at"`
	Permissions         map[string]string `json:"permissions"`
	RepositorySelection string            `json:"repository_selection"`
	Repositories        []any             `json:"repositories,omitempty"`
}

func appEvents() []string {
	return []string{"issue_comment", "issues", "pull_request", "pull_request_review", "pull_request_review_comment"}
}

// GET /app
func (a *Apps) getApp(c *ghfake.Call, app int64) {
	a.mu.Lock()
	st := a.apps[app]
	created, slug := wireTime(st.created), st.slug
	a.mu.Unlock()
	c.JSON(http.StatusOK, ghfake.WireApp{
		ID: app, Slug: slug, NodeID: nodeID("A", app), Name: slug, ClientID: st.clientID,
		ExternalURL: a.gh.URL, HTMLURL: a.gh.URL + "/apps/" + slug, CreatedAt: created, UpdatedAt: created,
		Permissions: appPermissions(), Events: appEvents(),
	})
}

func (a *Apps) wireInstallation(in *installState) wireInstallation {
	id := strconv.FormatInt(in.id, 10)
	selection := "all"
	if in.repos != nil {
		selection = "selected"
	}
	acct := a.gh.User(in.owner)
	a.mu.Lock()
	slug := a.apps[in.app].slug
	a.mu.Unlock()
	return wireInstallation{
		ID: in.id, Account: acct, RepositorySelection: selection,
		AccessTokensURL: a.gh.APIURL() + "/app/installations/" + id + "/access_tokens",
		RepositoriesURL: a.gh.APIURL() + "/installation/repositories",
		HTMLURL:         a.gh.URL + "/settings/installations/" + id,
		AppID:           in.app, AppSlug: slug, TargetID: acct.ID, TargetType: acct.Type,
		Permissions: appPermissions(), Events: appEvents(),
		CreatedAt: wireTime(in.created), UpdatedAt: wireTime(in.created),
	}
}

// GET /app/installations, paginated.
func (a *Apps) listInstallations(c *ghfake.Call, app int64) {
	a.mu.Lock()
	var list []*installState
	for _, id := range slices.Sorted(maps.Keys(a.installs)) {
		if in := a.installs[id]; in.app == app {
			list = append(list, in)
		}
	}
	a.mu.Unlock()
	out := []wireInstallation{}
	for _, in := range ghfake.Paginate(c, list) {
		out = append(out, a.wireInstallation(in))
	}
	c.JSON(http.StatusOK, out)
}

// installation finds installation {id} of app, answering 404 when there is
// none.
func (a *Apps) installation(c *ghfake.Call, app int64) *installState {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	a.mu.Lock()
	in := a.installs[id]
	a.mu.Unlock()
	if err != nil || in == nil || in.app != app {
		c.Fail(http.StatusNotFound, "Not Found")
		return nil
	}
	return in
}

// GET /app/installations/{id}
func (a *Apps) getInstallation(c *ghfake.Call, app int64) {
	if in := a.installation(c, app); in != nil {
		c.JSON(http.StatusOK, a.wireInstallation(in))
	}
}

// GET /repos/{owner}/{repo}/installation: the app's installation covering
// the repository, 404 when there is none.
func (a *Apps) getRepoInstallation(c *ghfake.Call, app int64) {
	r := a.gh.Repo(c.Param("owner"), c.Param("repo"))
	a.mu.Lock()
	var found *installState
	for _, in := range a.installs {
		if in.app == app && r != nil && slices.Contains(a.reposOf(in), r) {
			found = in
			break
		}
	}
	a.mu.Unlock()
	if found == nil {
		c.Fail(http.StatusNotFound, "Not Found")
		return
	}
	c.JSON(http.StatusOK, a.wireInstallation(found))
}

// POST /app/installations/{id}/access_tokens makes a token that acts as
// the app's slug[bot] for an hour, with write permission on the installation's
// repositories (read when only read permissions are asked for). The body
// may narrow the repositories (by name or id) and the permissions.
func (a *Apps) createInstallationToken(c *ghfake.Call, app int64) {
	in := a.installation(c, app)
	if in == nil {
		return
	}
	var req struct {
		Repositories  []string          `json:"repositories"`
		RepositoryIDs []int64           `json:"repository_ids"`
		Permissions   map[string]string `json:"permissions"`
	}
	if len(c.Body()) > 0 && !c.Decode(&req) {
		return
	}
	perms := appPermissions()
	if req.Permissions != nil {
		for name, level := range req.Permissions {
			if granted := perms[name]; granted == "" || level != "read" && level != granted {
				c.Invalid("InstallationToken", "permissions", "invalid",
					"The permissions requested are not granted to this installation.")
				return
			}
		}
		perms = req.Permissions
	}
	role := "read"
	if slices.Contains(slices.Collect(maps.Values(perms)), "write") {
		role = "write"
	}
	token := "ghs_" + rand.Text()
	expires := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	a.mu.Lock()
	defer a.mu.Unlock()
	repos := a.reposOf(in)
	narrowed := len(req.Repositories) > 0 || len(req.RepositoryIDs) > 0
	if narrowed {
		covers := func(match func(r *ghfake.Repo) bool) bool { return slices.ContainsFunc(repos, match) }
		ok := !slices.ContainsFunc(req.Repositories, func(n string) bool {
			return !covers(func(r *ghfake.Repo) bool { return strings.EqualFold(r.Name(), n) })
		}) && !slices.ContainsFunc(req.RepositoryIDs, func(id int64) bool {
			return !covers(func(r *ghfake.Repo) bool { return r.ID() == id })
		})
		if !ok {
			c.Invalid("InstallationToken", "repositories", "invalid",
				"There is at least one repository that does not exist or is not accessible to the parent installation.")
			return
		}
		repos = slices.DeleteFunc(repos, func(r *ghfake.Repo) bool {
			return !slices.ContainsFunc(req.Repositories, func(n string) bool { return strings.EqualFold(n, r.Name()) }) &&
				!slices.Contains(req.RepositoryIDs, r.ID())
		})
	}
	appBot := a.apps[app].bot()
	a.gh.AddExpiringToken(token, appBot, expires)
	if a.tokenInstall == nil {
		a.tokenInstall = make(map[string]int64)
	}
	a.tokenInstall[token] = in.id
	out := wireInstallationToken{Token: token, ExpiresAt: wireTime(expires), Permissions: perms, RepositorySelection: "all"}
	for _, r := range repos {
		_ = r.RaiseRole(appBot, role) // read or write, both roles
	}
	if narrowed || in.repos != nil {
		out.RepositorySelection = "selected"
		for _, r := range repos {
			out.Repositories = append(out.Repositories, r.Wire())
		}
	}
	c.JSON(http.StatusCreated, out)
}
