// Package gh is the GitHub plumbing every entry point shares: credentials
// from the environment, a go-github client for the public API or GitHub
// Enterprise Server, git authentication that keeps the token out of URLs
// and .git/config, and the calls core makes: repositories, issues,
// comments, reactions, pull requests and permissions.
package gh

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
)

// PublicAPI is the API of github.com.
const PublicAPI = "https://api.github.com"

// Credentials are the token core acts with and the API it talks to.
type Credentials struct {
	Token  string
	APIURL string
}

// CredentialsFromEnv reads GITHUB_TOKEN (or GH_TOKEN) and GITHUB_API_URL.
func CredentialsFromEnv(getenv func(string) string) (Credentials, error) {
	c := Credentials{Token: strings.TrimSpace(getenv("GITHUB_TOKEN")), APIURL: strings.TrimSpace(getenv("GITHUB_API_URL"))}
	if c.Token == "" {
		c.Token = strings.TrimSpace(getenv("GH_TOKEN"))
	}
	if c.Token == "" {
		return c, errors.New("no GitHub token: set GITHUB_TOKEN or GH_TOKEN (both were read and are empty)")
	}
	if c.APIURL == "" {
		c.APIURL = PublicAPI
	}
	u, err := url.Parse(c.APIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return c, fmt.Errorf("GITHUB_API_URL must be an http(s) URL such as %s or https://github.example.com/api/v3, got %q", PublicAPI, c.APIURL)
	}
	return c, nil
}

// Client talks to one GitHub (github.com or an Enterprise Server) with one
// token, or with a token source that hands out fresh ones.
type Client struct {
	gh     *github.Client
	token  string
	tokens TokenSource

	mu   sync.Mutex
	seen []string // tokens the source handed out
}

// TokenSource returns a token valid now. A GitHub App installation token
// lives an hour and a session may run two: git asks the source for a
// token each time it talks to GitHub (clone, push), so landing at the end
// works.
type TokenSource func(ctx context.Context) (string, error)

// WithTokens makes a Client of a go-github client that authenticates by
// itself (a GitHub App installation's transport refreshes its own tokens)
// and of a token source for git.
func WithTokens(c *github.Client, tokens TokenSource) *Client {
	return &Client{gh: c, tokens: tokens}
}

// Token returns the token git should use now.
func (c *Client) Token(ctx context.Context) (string, error) {
	if c.tokens == nil {
		if c.token == "" {
			return "", errors.New("this GitHub client holds no token for git")
		}
		return c.token, nil
	}
	t, err := c.tokens(ctx)
	if err != nil {
		return "", fmt.Errorf("a fresh token for git: %w", err)
	}
	c.mu.Lock()
	if !slices.Contains(c.seen, t) {
		c.seen = append(c.seen, t)
	}
	c.mu.Unlock()
	return t, nil
}

// APITimeout bounds one call to the GitHub API when the caller's HTTP
// client has no timeout of its own: a GitHub that stops answering fails the
// call instead of hanging the run.
const APITimeout = 30 * time.Second

// New returns a client for creds. hc may be nil; a client without a
// timeout gets APITimeout.
func New(creds Credentials, hc *http.Client) (*Client, error) {
	if creds.Token == "" {
		return nil, errors.New("no GitHub token")
	}
	c := github.NewClient(withTimeout(hc)).WithAuthToken(creds.Token)
	if api := strings.TrimRight(creds.APIURL, "/"); api != "" && api != PublicAPI {
		var err error
		c, err = c.WithEnterpriseURLs(api+"/", api+"/")
		if err != nil {
			return nil, fmt.Errorf("GITHUB_API_URL %s: %w", creds.APIURL, err)
		}
	}
	return &Client{gh: c, token: creds.Token}, nil
}

// withTimeout returns hc, or a copy of it, with a timeout.
func withTimeout(hc *http.Client) *http.Client {
	if hc == nil {
		return &http.Client{Timeout: APITimeout}
	}
	if hc.Timeout > 0 {
		return hc
	}
	c := *hc
	c.Timeout = APITimeout
	return &c
}

// GitHub returns the underlying go-github client.
func (c *Client) GitHub() *github.Client { return c.gh }

// Secrets lists what must never be written anywhere: the token (every
// token the source handed out so far), and the forms git sends it in.
func (c *Client) Secrets() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, t := range append([]string{c.token}, c.seen...) {
		if t != "" {
			out = append(out, t, basicAuth(t))
		}
	}
	return out
}

// GitEnv returns the environment variables that make git authenticate as
// this client, with an Authorization header passed through git's
// environment-based configuration: never in a URL, never in .git/config.
// The header is scoped to host, so a submodule or redirect elsewhere does
// not receive it. The token is the one valid now (Token).
func (c *Client) GitEnv(ctx context.Context, cloneURL string) ([]string, error) {
	token, err := c.Token(ctx)
	if err != nil {
		return nil, err
	}
	scope := "http.extraHeader"
	if u, err := url.Parse(cloneURL); err == nil && u.Host != "" {
		scope = fmt.Sprintf("http.%s://%s/.extraHeader", u.Scheme, u.Host)
	}
	return []string{
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=" + scope,
		"GIT_CONFIG_VALUE_0=Authorization: Basic " + basicAuth(token),
	}, nil
}

func basicAuth(token string) string {
	return base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
}

var repoName = regexp.MustCompile(`^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9._-]{1,100})$`)

// ParseRepo splits owner/name.
func ParseRepo(s string) (owner, name string, err error) {
	m := repoName.FindStringSubmatch(strings.TrimSuffix(s, ".git"))
	if m == nil || m[2] == "." || m[2] == ".." {
		return "", "", fmt.Errorf("--repo must be owner/name or a local path, got %q", s)
	}
	return m[1], m[2], nil
}

// IsRepoName reports whether s reads as owner/name.
func IsRepoName(s string) bool {
	_, _, err := ParseRepo(s)
	return err == nil
}

// httpStatus returns the HTTP status of a go-github error, or 0.
func httpStatus(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// Wrap makes a Client of a go-github client that authenticates by itself
// (a GitHub App installation's). It holds no token: it cannot drive git
// (see WithTokens).
func Wrap(c *github.Client) *Client { return &Client{gh: c} }
