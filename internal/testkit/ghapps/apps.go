package ghapps

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
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v4"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// Apps is the App side of one double: its apps, their installations and
// tokens, the OAuth flows and the manifest flow. Its state is its own,
// under its own lock;
// it reaches the double only through the double's exported API, which it
// may call holding mu (the double never calls it holding its own lock).
type Apps struct {
	gh *ghfake.GitHub

	mu       sync.Mutex
	apps     map[int64]*appState
	installs map[int64]*installState
	// tokenInstall maps an installation token to its installation.
	tokenInstall map[string]int64
	// userTokens maps a user-to-server token to the app it was made for.
	userTokens map[string]int64
	// oauthCodes are the web flow's codes not yet exchanged; browserLogin
	// is the user signed in to the double's web pages.
	oauthCodes   map[string]oauthCode
	browserLogin string
	// devices are the device flow's codes, oldest first.
	devices    []*deviceState
	deviceFlow DeviceFlow
	// manifests is the App manifest flow's state.
	manifests manifestState

	// keyOnce guards the app key, which every app shares.
	keyOnce sync.Once
	key     *rsa.PrivateKey
	keyErr  error
}

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
func (a *Apps) AddApp(appID int64) (privateKeyPEM []byte, err error) {
	if appID <= 0 {
		return nil, fmt.Errorf("add app %d: an app id is positive", appID)
	}
	key, err := a.appKey()
	if err != nil {
		return nil, fmt.Errorf("add app %d: %w", appID, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.apps[appID] != nil {
		return nil, fmt.Errorf("add app %d: it already exists", appID)
	}
	if a.apps == nil {
		a.apps = make(map[int64]*appState)
	}
	a.apps[appID] = &appState{
		id: appID, slug: AppSlug, created: ghNow(),
		clientID: fmt.Sprintf("Iv1.%012x", appID), clientSecret: rand.Text() + rand.Text(),
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), nil
}

func (a *Apps) appKey() (*rsa.PrivateKey, error) {
	a.keyOnce.Do(func() {
		a.key, a.keyErr = rsa.GenerateKey(rand.Reader, 2048)
	})
	if a.keyErr != nil {
		return nil, fmt.Errorf("generate the app key: %w", a.keyErr)
	}
	return a.key, nil
}

// SetAppSlug renames app appID: its installation tokens act as slug[bot]
// from then on. Two apps with different slugs tell their tokens apart.
func (a *Apps) SetAppSlug(appID int64, slug string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	app := a.apps[appID]
	if app == nil {
		return fmt.Errorf("rename app %d: no such app (see AddApp)", appID)
	}
	app.slug = slug
	return nil
}

// AddInstallation installs app appID on owner's account, for repos (names
// under owner) or, when there are none, for all of owner's repositories,
// including those added later.
func (a *Apps) AddInstallation(appID, installationID int64, owner string, repos ...string) error {
	for _, name := range repos {
		if a.gh.Repo(owner, name) == nil {
			return fmt.Errorf("install app %d on %s: no repository %s/%s", appID, owner, owner, name)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.apps[appID] == nil:
		return fmt.Errorf("install app %d on %s: no such app (see AddApp)", appID, owner)
	case installationID <= 0 || a.installs[installationID] != nil:
		return fmt.Errorf("install app %d on %s: installation id %d is taken or not positive", appID, owner, installationID)
	}
	if a.installs == nil {
		a.installs = make(map[int64]*installState)
	}
	a.installs[installationID] = &installState{
		id: installationID, app: appID, owner: owner, repos: slices.Clone(repos), created: ghNow(),
	}
	return nil
}

// reposOf lists the repositories an installation covers, by name.
func (a *Apps) reposOf(in *installState) []*ghfake.Repo {
	var out []*ghfake.Repo
	for _, r := range a.gh.ReposOf(in.owner) {
		if in.repos == nil || slices.ContainsFunc(in.repos, func(n string) bool {
			return strings.EqualFold(n, r.Name())
		}) {
			out = append(out, r)
		}
	}
	return out
}

// addAppAPI adds the App side's endpoints and pages to the double: the
// endpoints an app calls as itself, with a JWT, and those of its tokens;
// the OAuth flows' pages.
func (a *Apps) addAppAPI() {
	gh := a.gh
	as := func(h func(c *ghfake.Call, app int64)) func(c *ghfake.Call) {
		return func(c *ghfake.Call) {
			app, msg := a.appFromJWT(c.Request().Header.Get("Authorization"))
			if msg != "" {
				c.Fail(http.StatusUnauthorized, msg)
				return
			}
			h(c, app)
		}
	}
	gh.HandleOwnAuthAPI("GET /app", as(a.getApp))
	gh.HandleOwnAuthAPI("GET /app/installations", as(a.listInstallations))
	gh.HandleOwnAuthAPI("GET /app/installations/{id}", as(a.getInstallation))
	gh.HandleOwnAuthAPI("POST /app/installations/{id}/access_tokens", as(a.createInstallationToken))
	gh.HandleOwnAuthAPI("GET /repos/{owner}/{repo}/installation", as(a.getRepoInstallation))
	gh.HandleAPI("GET /user/installations", a.listUserInstallations)
	gh.HandleAPI("GET /installation/repositories", a.listInstallationRepos)
	gh.HandleWeb(a.serveOAuthPages)
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
func (a *Apps) appFromJWT(header string) (app int64, refusal string) {
	scheme, raw, _ := strings.Cut(strings.TrimSpace(header), " ")
	if !strings.EqualFold(scheme, "bearer") {
		return 0, jwtUndecodable
	}
	claims := jwt.MapClaims{}
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithJSONNumber(), jwt.WithoutClaimsValidation())
	_, err := parser.ParseWithClaims(strings.TrimSpace(raw), claims, func(*jwt.Token) (any, error) {
		id, ok := numericClaim(claims["iss"])
		a.mu.Lock()
		known := ok && a.apps[int64(id)] != nil
		a.mu.Unlock()
		if !known || a.key == nil {
			return nil, errors.New("unknown issuer")
		}
		app = int64(id)
		return &a.key.PublicKey, nil
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
