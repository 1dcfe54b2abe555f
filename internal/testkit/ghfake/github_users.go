package ghfake

import (
	"crypto/rand"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
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
func (g *GitHub) AddUserToken(appID int64, login string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ext.apps[appID] == nil {
		return "", fmt.Errorf("make a user token of app %d: no such app (see AddApp)", appID)
	}
	return g.userTokenLocked(appID, login), nil
}

func (g *GitHub) userTokenLocked(appID int64, login string) string {
	token := "ghu_" + rand.Text()
	g.tokens[token] = login
	if g.ext.userTokens == nil {
		g.ext.userTokens = make(map[string]int64)
	}
	g.ext.userTokens[token] = appID
	return token
}

// AppOAuth returns app appID's OAuth client id and secret.
func (g *GitHub) AppOAuth(appID int64) (clientID, clientSecret string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	a := g.ext.apps[appID]
	if a == nil {
		return "", "", fmt.Errorf("app %d: no such app (see AddApp)", appID)
	}
	return a.clientID, a.clientSecret, nil
}

// tokenKind classifies the token of an Authorization header: the
// installation it belongs to, or the app a user token was made for.
func (g *GitHub) tokenKind(header string) (install, userApp int64) {
	token := tokenFrom(header)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ext.tokenInstall[token], g.ext.userTokens[token]
}

// AddExpiringToken makes token authenticate login until expires, as an
// installation token does: GET /user refuses it, and past expires (or
// once ExpireToken ends it) it is refused with 401 Bad credentials.
func (g *GitHub) AddExpiringToken(token, login string, expires time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens[token] = login
	g.expiry[token] = expires
}

// ExpireToken makes an installation token expire now, as it would an hour
// after it was made: from then on it is refused with 401 Bad credentials.
func (g *GitHub) ExpireToken(token string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.expiry[token]; ok {
		g.expiry[token] = time.Now()
	}
}

// expiredLocked reports whether token is a token that expires (an
// installation token) past its expiry. Callers hold g.mu.
func (g *GitHub) expiredLocked(token string) bool {
	exp, ok := g.expiry[token]
	return ok && !time.Now().Before(exp)
}

// GET /user answers the token's user; installation tokens (the tokens
// that expire) are refused, as GitHub does.
func (g *GitHub) getUser(c *apiCall) {
	g.mu.Lock()
	_, expires := g.expiry[tokenFrom(c.r.Header.Get("Authorization"))]
	g.mu.Unlock()
	if expires {
		c.forbid()
		return
	}
	c.json(http.StatusOK, g.wireUser(c.login))
}

// GET /user/installations: the installations of the token's app that its
// user can see (the account is the user, or the user has a role on one of
// the account's repositories). Only user-to-server tokens may ask.
func (g *GitHub) listUserInstallations(c *Call) {
	_, app := g.tokenKind(c.Request().Header.Get("Authorization"))
	if app == 0 {
		c.Fail(http.StatusForbidden, "You must authenticate with an access token authorized to a GitHub App in order to list installations")
		return
	}
	g.mu.Lock()
	var list []*installState
	for _, id := range slices.Sorted(maps.Keys(g.ext.installs)) {
		if in := g.ext.installs[id]; in.app == app && g.seesAccountLocked(c.Login(), in.owner) {
			list = append(list, in)
		}
	}
	g.mu.Unlock()
	page := Paginate(c, list)
	out := struct {
		TotalCount    int                `json:"total_count"`
		Installations []wireInstallation `json:"installations"`
	}{TotalCount: len(list), Installations: []wireInstallation{}}
	for _, in := range page {
		out.Installations = append(out.Installations, g.wireInstallation(in))
	}
	c.JSON(http.StatusOK, out)
}

// seesAccountLocked reports whether login is account or has a role on one
// of its repositories. Callers hold g.mu.
func (g *GitHub) seesAccountLocked(login, account string) bool {
	if strings.EqualFold(login, account) {
		return true
	}
	for _, r := range g.repos {
		if strings.EqualFold(r.owner, account) && r.roleLocked(login) != "none" {
			return true
		}
	}
	return false
}

// GET /installation/repositories: what an installation token covers. Other
// tokens are refused.
func (g *GitHub) listInstallationRepos(c *Call) {
	id, _ := g.tokenKind(c.Request().Header.Get("Authorization"))
	g.mu.Lock()
	in := g.ext.installs[id]
	if in == nil {
		g.mu.Unlock()
		c.Fail(http.StatusForbidden, "This endpoint can only be accessed with an installation access token")
		return
	}
	repos := g.reposLocked(in)
	wire := make([]*wireRepo, 0, len(repos))
	for _, r := range repos {
		wire = append(wire, r.wireLocked("", false))
	}
	selection := "all"
	if in.repos != nil {
		selection = "selected"
	}
	g.mu.Unlock()
	c.JSON(http.StatusOK, struct {
		TotalCount          int         `json:"total_count"`
		RepositorySelection string      `json:"repository_selection"`
		Repositories        []*wireRepo `json:"repositories"`
	}{len(wire), selection, Paginate(c, wire)})
}

// InstallationToken makes an installation token of installation id, as
// POST /app/installations/{id}/access_tokens would with no narrowing, for
// tests that need one without signing a JWT.
func (g *GitHub) InstallationToken(id int64) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	in := g.ext.installs[id]
	if in == nil {
		return "", fmt.Errorf("make an installation token: no installation %d (see AddInstallation)", id)
	}
	token := "ghs_" + rand.Text()
	bot := g.ext.apps[in.app].bot()
	g.tokens[token] = bot
	if g.ext.tokenInstall == nil {
		g.ext.tokenInstall = make(map[string]int64)
	}
	g.expiry[token] = time.Now().Add(time.Hour)
	g.ext.tokenInstall[token] = in.id
	for _, r := range g.reposLocked(in) {
		if r.rankLocked(bot) < permWrite {
			r.perms[strings.ToLower(bot)] = "write"
		}
	}
	return token, nil
}
