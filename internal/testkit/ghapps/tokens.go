package ghapps

import (
	"crypto/rand"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// GitHub tells three kinds of token apart, as github.com does:
//   - installation tokens (ghs_, see POST /app/installations/{id}/access_tokens)
//     act as the app's bot; GET /user refuses them, GET
//     /installation/repositories lists what they cover;
//   - user-to-server tokens (ghu_, AddUserToken or the OAuth web flow) act
//     as a user on behalf of one app; GET /user/installations lists that
//     app's installations the user can see;
//   - personal tokens (AddToken) act as a user for no app.

// AddUserToken makes a user-to-server token of app appID for login, as the
// App's OAuth flows hand out, and returns it.
func (a *Apps) AddUserToken(appID int64, login string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.apps[appID] == nil {
		return "", fmt.Errorf("make a user token of app %d: no such app (see AddApp)", appID)
	}
	return a.userTokenLocked(appID, login), nil
}

func (a *Apps) userTokenLocked(appID int64, login string) string {
	token := "ghu_" + rand.Text()
	a.gh.AddToken(token, login)
	if a.userTokens == nil {
		a.userTokens = make(map[string]int64)
	}
	a.userTokens[token] = appID
	return token
}

// AppOAuth returns app appID's OAuth client id and secret.
func (a *Apps) AppOAuth(appID int64) (clientID, clientSecret string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	app := a.apps[appID]
	if app == nil {
		return "", "", fmt.Errorf("app %d: no such app (see AddApp)", appID)
	}
	return app.clientID, app.clientSecret, nil
}

// tokenKind classifies a request's token: the installation it belongs
// to, or the app a user token was made for.
func (a *Apps) tokenKind(c *ghfake.Call) (install, userApp int64) {
	token := c.Token()
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tokenInstall[token], a.userTokens[token]
}

// GET /user/installations: the installations of the token's app that its
// user can see (the account is the user, or the user has a role on one of
// the account's repositories). Only user-to-server tokens may ask.
func (a *Apps) listUserInstallations(c *ghfake.Call) {
	_, app := a.tokenKind(c)
	if app == 0 {
		c.Fail(http.StatusForbidden, "You must authenticate with an access token authorized to a GitHub App in order to list installations")
		return
	}
	a.mu.Lock()
	var list []*installState
	for _, id := range slices.Sorted(maps.Keys(a.installs)) {
		if in := a.installs[id]; in.app == app && a.gh.SeesAccount(c.Login(), in.owner) {
			list = append(list, in)
		}
	}
	a.mu.Unlock()
	page := ghfake.Paginate(c, list)
	out := struct {
		TotalCount    int                `json:"total_count"`
		Installations []wireInstallation `json:"installations"`
	}{TotalCount: len(list), Installations: []wireInstallation{}}
	for _, in := range page {
		out.Installations = append(out.Installations, a.wireInstallation(in))
	}
	c.JSON(http.StatusOK, out)
}

// GET /installation/repositories: what an installation token covers. Other
// tokens are refused.
func (a *Apps) listInstallationRepos(c *ghfake.Call) {
	id, _ := a.tokenKind(c)
	a.mu.Lock()
	in := a.installs[id]
	if in == nil {
		a.mu.Unlock()
		c.Fail(http.StatusForbidden, "This endpoint can only be accessed with an installation access token")
		return
	}
	repos := a.reposOf(in)
	wire := make([]any, 0, len(repos))
	for _, r := range repos {
		wire = append(wire, r.Wire())
	}
	selection := "all"
	if in.repos != nil {
		selection = "selected"
	}
	a.mu.Unlock()
	c.JSON(http.StatusOK, struct {
		TotalCount          int    `json:"total_count"`
		RepositorySelection string `json:"repository_selection"`
		Repositories        []any  `json:"repositories"`
	}{len(wire), selection, ghfake.Paginate(c, wire)})
}

// InstallationToken makes an installation token of installation id, as
// POST /app/installations/{id}/access_tokens would with no narrowing, for
// tests that need one without signing a JWT.
func (a *Apps) InstallationToken(id int64) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	in := a.installs[id]
	if in == nil {
		return "", fmt.Errorf("make an installation token: no installation %d (see AddInstallation)", id)
	}
	token := "ghs_" + rand.Text()
	bot := a.apps[in.app].bot()
	a.gh.AddExpiringToken(token, bot, time.Now().Add(time.Hour))
	if a.tokenInstall == nil {
		a.tokenInstall = make(map[string]int64)
	}
	a.tokenInstall[token] = in.id
	for _, r := range a.reposOf(in) {
		_ = r.RaiseRole(bot, "write") // a known role
	}
	return token, nil
}
