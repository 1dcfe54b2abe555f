package ghfake

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

// AppSlug is the slug of an app of the double unless SetAppSlug renames
// it; its installation tokens act as AppSlug + "[bot]".
const AppSlug = "core-app"

type appState struct {
	id      int64
	slug    string
	created time.Time
	// clientID and clientSecret are its OAuth credentials (see AppOAuth).
	clientID, clientSecret string
}

// bot is the login the app's installation tokens authenticate.
func (a *appState) bot() string { return a.slug + "[bot]" }

type installState struct {
	id, app int64
	owner   string
	repos   []string // names under owner; nil means all of them
	created time.Time
}

// AddApp registers a GitHub App and returns its private key, PEM-encoded
// (PKCS #1, as GitHub hands it out). Every app of one double shares one
// 2048-bit key, generated on first use.
func (g *GitHub) AddApp(appID int64) (privateKeyPEM []byte, err error) {
	if appID <= 0 {
		return nil, fmt.Errorf("add app %d: an app id is positive", appID)
	}
	key, err := g.appKey()
	if err != nil {
		return nil, fmt.Errorf("add app %d: %w", appID, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ext.apps[appID] != nil {
		return nil, fmt.Errorf("add app %d: it already exists", appID)
	}
	if g.ext.apps == nil {
		g.ext.apps = make(map[int64]*appState)
	}
	g.ext.apps[appID] = &appState{
		id: appID, slug: AppSlug, created: ghNow(),
		clientID: fmt.Sprintf("Iv1.%012x", appID), clientSecret: rand.Text() + rand.Text(),
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), nil
}

func (g *GitHub) appKey() (*rsa.PrivateKey, error) {
	g.ext.keyOnce.Do(func() {
		g.ext.key, g.ext.keyErr = rsa.GenerateKey(rand.Reader, 2048)
	})
	if g.ext.keyErr != nil {
		return nil, fmt.Errorf("generate the app key: %w", g.ext.keyErr)
	}
	return g.ext.key, nil
}

// SetAppSlug renames app appID: its installation tokens act as slug[bot]
// from then on. Two apps with different slugs tell their tokens apart.
func (g *GitHub) SetAppSlug(appID int64, slug string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	a := g.ext.apps[appID]
	if a == nil {
		return fmt.Errorf("rename app %d: no such app (see AddApp)", appID)
	}
	a.slug = slug
	return nil
}

// AddInstallation installs app appID on owner's account, for repos (names
// under owner) or, when there are none, for all of owner's repositories,
// including those added later.
func (g *GitHub) AddInstallation(appID, installationID int64, owner string, repos ...string) error {
	for _, name := range repos {
		if g.repo(owner, name) == nil {
			return fmt.Errorf("install app %d on %s: no repository %s/%s", appID, owner, owner, name)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.ext.apps[appID] == nil:
		return fmt.Errorf("install app %d on %s: no such app (see AddApp)", appID, owner)
	case installationID <= 0 || g.ext.installs[installationID] != nil:
		return fmt.Errorf("install app %d on %s: installation id %d is taken or not positive", appID, owner, installationID)
	}
	if g.ext.installs == nil {
		g.ext.installs = make(map[int64]*installState)
	}
	g.ext.installs[installationID] = &installState{
		id: installationID, app: appID, owner: owner, repos: slices.Clone(repos), created: ghNow(),
	}
	return nil
}

// reposLocked lists the repositories an installation covers, by name.
// Callers hold g.mu.
func (g *GitHub) reposLocked(in *installState) []*Repo {
	var out []*Repo
	for _, r := range g.repos {
		if strings.EqualFold(r.owner, in.owner) && (in.repos == nil || slices.ContainsFunc(in.repos, func(n string) bool {
			return strings.EqualFold(n, r.name)
		})) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Repo) int { return strings.Compare(a.name, b.name) })
	return out
}

// addAppSide adds the App side's endpoints and pages to the double: the
// endpoints an app calls as itself, with a JWT, and those of its tokens;
// the OAuth flows' pages.
func (g *GitHub) addAppSide() {
	as := func(h func(c *Call, app int64)) func(c *Call) {
		return func(c *Call) {
			app, msg := g.appFromJWT(c.Request().Header.Get("Authorization"))
			if msg != "" {
				c.Fail(http.StatusUnauthorized, msg)
				return
			}
			h(c, app)
		}
	}
	g.HandleOwnAuthAPI("GET /app", as(g.getApp))
	g.HandleOwnAuthAPI("GET /app/installations", as(g.listInstallations))
	g.HandleOwnAuthAPI("GET /app/installations/{id}", as(g.getInstallation))
	g.HandleOwnAuthAPI("POST /app/installations/{id}/access_tokens", as(g.createInstallationToken))
	g.HandleOwnAuthAPI("GET /repos/{owner}/{repo}/installation", as(g.getRepoInstallation))
	g.HandleAPI("GET /user/installations", g.listUserInstallations)
	g.HandleAPI("GET /installation/repositories", g.listInstallationRepos)
	g.HandleWeb(g.serveOAuthPages)
}

// GitHub's answers to a JWT it refuses.
const (
	jwtUndecodable = "A JSON web token could not be decoded"
	jwtTooLong     = "'Expiration time' claim ('exp') is too far in the future"
	jwtExpired     = "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	jwtIssuedLater = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
)

// appFromJWT verifies an app's JWT (RS256, signed with the app's key, iss
// the app id as a string or number, iat not in the future, exp in the
// future and at most ten minutes away) and returns the app id, or GitHub's
// message refusing it.
func (g *GitHub) appFromJWT(header string) (app int64, refusal string) {
	scheme, raw, _ := strings.Cut(strings.TrimSpace(header), " ")
	if !strings.EqualFold(scheme, "bearer") {
		return 0, jwtUndecodable
	}
	claims := jwt.MapClaims{}
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithJSONNumber(), jwt.WithoutClaimsValidation())
	_, err := parser.ParseWithClaims(strings.TrimSpace(raw), claims, func(*jwt.Token) (any, error) {
		id, ok := numericClaim(claims["iss"])
		g.mu.Lock()
		known := ok && g.ext.apps[int64(id)] != nil
		g.mu.Unlock()
		if !known || g.ext.key == nil {
			return nil, errors.New("unknown issuer")
		}
		app = int64(id)
		return &g.ext.key.PublicKey, nil
	})
	if err != nil {
		return 0, jwtUndecodable
	}
	now := float64(time.Now().Unix())
	exp, okExp := numericClaim(claims["exp"])
	iat, okIat := numericClaim(claims["iat"])
	switch {
	case !okIat || iat > now+60: // GitHub allows a minute of clock drift
		return 0, jwtIssuedLater
	case !okExp || exp <= now:
		return 0, jwtExpired
	case exp > now+600:
		return 0, jwtTooLong
	}
	return app, ""
}

// numericClaim reads a claim that is a number or a string of digits.
func numericClaim(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return float64(n), err == nil
	}
	return 0, false
}
