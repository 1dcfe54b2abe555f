package console

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/coreagent/core/gh"
)

// armVariable is the repository variable that arms the forger (the
// forger package's ArmVariable).
const armVariable = "CORE_FORGE_ENABLED"

type forgerRepo struct {
	Name  string
	Armed bool
}

// GET /forger: each repository of the installation, armed or not.
func (c *Console) forgerPage(w http.ResponseWriter, r *http.Request) {
	p := c.signedIn(w, r, "Forger")
	if p == nil {
		return
	}
	repos, err := c.cfg.App.Repositories(r.Context(), c.cfg.Org)
	if err != nil {
		c.failPage(w, r, p, "forger", "The App's repositories could not be listed just now; reload the page in a moment.", err)
		return
	}
	for _, repo := range repos {
		v, _, err := c.cfg.App.Variable(r.Context(), repo, armVariable)
		if err != nil {
			c.logFailure(r, err)
			p.Error = fmt.Sprintf("Whether %s is armed could not be read just now; it shows as disarmed. Reload the page in a moment.", repo)
		}
		p.Repos = append(p.Repos, forgerRepo{Name: repo, Armed: strings.EqualFold(strings.TrimSpace(v), "true")})
	}
	c.render(w, http.StatusOK, "forger", p)
}

// POST /forger (repo, armed=true|false, csrf): arm or disarm, for a user
// with write access to the repository, audited.
func (c *Console) postForger(w http.ResponseWriter, r *http.Request) {
	ws := c.form(w, r)
	if ws == nil {
		return
	}
	repo, armed := r.PostFormValue("repo"), r.PostFormValue("armed")
	if armed != "true" && armed != "false" {
		c.refusePage(w, r, http.StatusBadRequest, ws.Login, fmt.Sprintf("armed must be true or false, got %q", armed))
		return
	}
	repos, err := c.cfg.App.Repositories(r.Context(), c.cfg.Org)
	if err != nil {
		c.logFailure(r, err)
		c.refusePage(w, r, http.StatusBadGateway, ws.Login, "GitHub did not list the App's repositories just now; try again in a moment")
		return
	}
	if !slices.ContainsFunc(repos, func(s string) bool { return strings.EqualFold(s, repo) }) {
		c.refusePage(w, r, http.StatusBadRequest, ws.Login, fmt.Sprintf("the App is not installed on %q", repo))
		return
	}
	perm, err := c.cfg.App.Permission(r.Context(), repo, ws.Login)
	if err != nil {
		c.logFailure(r, err)
		c.refusePage(w, r, http.StatusBadGateway, ws.Login, "GitHub did not say what your permission on "+repo+" is just now; try again in a moment")
		return
	}
	if !gh.CanWrite(perm) {
		c.refusePage(w, r, http.StatusForbidden, ws.Login, fmt.Sprintf("arming the forger on %s needs write access; %s has %s", repo, ws.Login, perm))
		return
	}
	if err := c.cfg.App.SetVariable(r.Context(), repo, armVariable, armed); err != nil {
		c.logFailure(r, err)
		c.refusePage(w, r, http.StatusBadGateway, ws.Login, fmt.Sprintf("GitHub did not set %s on %s just now; try again in a moment", armVariable, repo))
		return
	}
	what := "disarmed"
	if armed == "true" {
		what = "armed"
	}
	_ = c.audit(r.Context(), ws.Login, "forger", repo, what+" the forger")
	http.Redirect(w, r, "/forger", http.StatusSeeOther)
}
