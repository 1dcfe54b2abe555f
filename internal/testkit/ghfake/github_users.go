package ghfake

import (
	"net/http"
	"strings"
	"time"
)

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

// GET /users/{login} answers the account that holds login now (its id as
// SetUserID last gave it). Every login is someone's here: the double keeps
// no list of accounts.
func (g *GitHub) getUserByLogin(c *apiCall) {
	c.json(http.StatusOK, g.wireUser(c.params["login"]))
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
