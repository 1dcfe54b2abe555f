package console

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kinds of verified token.
const (
	// TokenInstallation is an installation token of this App for the
	// console's organisation.
	TokenInstallation = "installation"
	// TokenUser is a user-to-server token of this App whose user can see
	// the App's installation on the organisation.
	TokenUser = "user"
)

// Identity is what GitHub says a token is. Kind is empty for a token that
// is neither of the two kinds the console accepts; Reason then says why.
type Identity struct {
	Kind  string
	Login string // the user's login, or the App's bot login
	// Owner names who the token acts for, stably: "user:ID" with the
	// user's numeric GitHub id (a login can be renamed and taken by
	// someone else), or "installation:APPID/ORG" for this App's one
	// installation on the organisation. A stored run may be replaced only
	// by a report from its Owner.
	Owner  string
	Reason string
}

// verifier asks GitHub what a token is, and remembers the answer for ttl
// under the token's SHA-256: the token itself is kept nowhere.
type verifier struct {
	api     string // the REST base URL, no trailing slash
	graphql string
	org     string
	appID   int64
	slug    func(ctx context.Context) (string, error)
	hc      *http.Client
	now     func() time.Time
	ttl     time.Duration

	mu    sync.Mutex
	cache map[string]cachedIdentity
}

type cachedIdentity struct {
	id      Identity
	expires time.Time
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// verify returns the token's identity. Errors are GitHub being unreachable
// or answering something unexpected; a token GitHub refuses is an
// Identity with no Kind.
func (v *verifier) verify(ctx context.Context, token string) (Identity, error) {
	key := tokenHash(token)
	now := v.now()
	v.mu.Lock()
	if c, ok := v.cache[key]; ok && now.Before(c.expires) {
		v.mu.Unlock()
		return c.id, nil
	}
	v.mu.Unlock()
	id, err := v.ask(ctx, token)
	if err != nil {
		return Identity{}, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cache == nil {
		v.cache = make(map[string]cachedIdentity)
	}
	for k, c := range v.cache { // keep the cache from growing without end
		if !now.Before(c.expires) {
			delete(v.cache, k)
		}
	}
	v.cache[key] = cachedIdentity{id: id, expires: now.Add(v.ttl)}
	return id, nil
}

func (v *verifier) ask(ctx context.Context, token string) (Identity, error) {
	var user struct {
		Login string `json:"login"`
		ID    int64  `json:"id"`
	}
	status, err := v.get(ctx, token, "/user", &user)
	switch {
	case err != nil:
		return Identity{}, err
	case status == http.StatusUnauthorized:
		return Identity{Reason: "GitHub does not accept the token (bad credentials, or it expired)"}, nil
	case status == http.StatusForbidden:
		return v.installation(ctx, token)
	case status != http.StatusOK:
		return Identity{}, fmt.Errorf("verify a token: GET /user answered %d", status)
	}
	var insts struct {
		Installations []struct {
			AppID   int64 `json:"app_id"`
			Account struct {
				Login string `json:"login"`
			} `json:"account"`
		} `json:"installations"`
	}
	status, err = v.get(ctx, token, "/user/installations?per_page=100", &insts)
	switch {
	case err != nil:
		return Identity{}, err
	case status == http.StatusForbidden || status == http.StatusUnauthorized:
		return Identity{Login: user.Login, Reason: fmt.Sprintf(
			"the token of %s is not a user token of this GitHub App: sign in with `core auth login`", user.Login)}, nil
	case status != http.StatusOK:
		return Identity{}, fmt.Errorf("verify a token: GET /user/installations answered %d", status)
	}
	for _, in := range insts.Installations {
		if in.AppID == v.appID && strings.EqualFold(in.Account.Login, v.org) {
			if user.ID <= 0 {
				return Identity{}, fmt.Errorf("verify a token: GET /user answered no id for %s", user.Login)
			}
			return Identity{Kind: TokenUser, Login: user.Login, Owner: "user:" + strconv.FormatInt(user.ID, 10)}, nil
		}
	}
	return Identity{Login: user.Login, Reason: fmt.Sprintf(
		"the token of %s cannot see this GitHub App's installation on %s (a token of another app, or %s has no access to %s)",
		user.Login, v.org, user.Login, v.org)}, nil
}

// installation checks a token GET /user refused: an installation token
// covering repositories of the organisation, acting as this App's bot.
func (v *verifier) installation(ctx context.Context, token string) (Identity, error) {
	var repos struct {
		Repositories []struct {
			Owner struct {
				Login string `json:"login"`
			} `json:"owner"`
		} `json:"repositories"`
	}
	status, err := v.get(ctx, token, "/installation/repositories?per_page=1", &repos)
	if err != nil {
		return Identity{}, err
	}
	if status != http.StatusOK {
		return Identity{Reason: "the token is neither a user's nor an installation's"}, nil
	}
	if len(repos.Repositories) == 0 || !strings.EqualFold(repos.Repositories[0].Owner.Login, v.org) {
		return Identity{Reason: "the installation token is not for " + v.org}, nil
	}
	var viewer struct {
		Data struct {
			Viewer struct {
				Login string `json:"login"`
			} `json:"viewer"`
		} `json:"data"`
	}
	if err := v.post(ctx, token, v.graphql, `{"query":"query { viewer { login } }"}`, &viewer); err != nil {
		return Identity{}, err
	}
	slug, err := v.slug(ctx)
	if err != nil {
		return Identity{}, fmt.Errorf("verify a token: learn this App's slug: %w", err)
	}
	login := viewer.Data.Viewer.Login
	if !strings.EqualFold(login, slug+"[bot]") {
		return Identity{Login: login, Reason: fmt.Sprintf("the installation token acts as %s, not as this App (%s[bot])", login, slug)}, nil
	}
	return Identity{Kind: TokenInstallation, Login: login, Owner: fmt.Sprintf("installation:%d/%s", v.appID, strings.ToLower(v.org))}, nil
}

// canSee reports whether token can read repo (owner/name) on GitHub: GET
// /repos/{owner}/{repo} answers it only to a token whose user, or whose
// installation, can see the repository. Errors are GitHub failing.
func (v *verifier) canSee(ctx context.Context, token, repo string) (bool, error) {
	owner, name, _ := strings.Cut(repo, "/")
	status, err := v.get(ctx, token, "/repos/"+url.PathEscape(owner)+"/"+url.PathEscape(name), nil)
	switch {
	case err != nil:
		return false, err
	case status == http.StatusOK:
		return true, nil
	case status == http.StatusNotFound || status == http.StatusForbidden || status == http.StatusUnauthorized:
		return false, nil
	}
	return false, fmt.Errorf("check access to %s: GET /repos/%s answered %d", repo, repo, status)
}

func (v *verifier) get(ctx context.Context, token, path string, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.api+path, nil)
	if err != nil {
		return 0, fmt.Errorf("verify a token: %w", err)
	}
	return v.do(req, token, out)
}

func (v *verifier) post(ctx context.Context, token, target, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewBufferString(body))
	if err != nil {
		return fmt.Errorf("verify a token: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	status, err := v.do(req, token, out)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("verify a token: POST %s answered %d", target, status)
	}
	return err
}

func (v *verifier) do(req *http.Request, token string, out any) (int, error) {
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	resp, err := v.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("verify a token: %s %s: %w", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, fmt.Errorf("verify a token: read %s: %w", req.URL.Path, err)
	}
	if resp.StatusCode == http.StatusOK && out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			return 0, fmt.Errorf("verify a token: %s answered something that is not JSON: %w", req.URL.Path, err)
		}
	}
	return resp.StatusCode, nil
}
