// Package auth signs the CLI in to GitHub as its user, with a GitHub App's
// OAuth device flow, and keeps the user-to-server token it gets in
// $CORE_HOME/auth.json (0600), for the console and for local sessions.
package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coreagent/core/internal/pause"
)

// PublicWeb is github.com's web host, where the OAuth endpoints live.
const PublicWeb = "https://github.com"

const deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

// Flow is one device-flow sign-in against a GitHub web host.
type Flow struct {
	// WebURL is the web host (GITHUB_SERVER_URL), default github.com.
	WebURL string
	// ClientID is the App's OAuth client id.
	ClientID string
	// HTTP is the client used (default http.DefaultClient).
	HTTP *http.Client
	// Open opens the verification page in the user's browser; nil opens
	// nothing (--no-browser).
	Open func(ctx context.Context, url string) error
	// Wait waits d or until ctx ends (default: a timer); tests pass a fake
	// clock's.
	Wait func(ctx context.Context, d time.Duration) error
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Code is what POST /login/device/code answers.
type Code struct {
	DeviceCode      string `json:"device_code"`
	UserCode        string `json:"user_code"`
	VerificationURI string `json:"verification_uri"`
	ExpiresIn       int    `json:"expires_in"`
	Interval        int    `json:"interval"`
}

// Token is what the flow ends with.
type Token struct {
	AccessToken  string
	RefreshToken string
	// ExpiresAt is zero when the token does not expire.
	ExpiresAt        time.Time
	RefreshExpiresAt time.Time
}

// OAuthError is a refusal from GitHub's OAuth endpoints (the error field).
type OAuthError struct {
	Code        string `json:"error"`
	Description string `json:"error_description"`
	URI         string `json:"error_uri"`
	// Interval is slow_down's new polling interval, in seconds.
	Interval int `json:"interval"`
}

func (e *OAuthError) Error() string {
	if e.Description == "" {
		return e.Code
	}
	return e.Code + ": " + e.Description
}

// ErrDenied and ErrExpired end a flow the user did not finish.
var (
	ErrDenied  = errors.New("the sign-in was denied on GitHub: run core auth login again and authorise the app")
	ErrExpired = errors.New("the code expired before it was entered: run core auth login again and enter the code within its lifetime")
)

func (f *Flow) web() string {
	if f.WebURL == "" {
		return PublicWeb
	}
	return strings.TrimSuffix(f.WebURL, "/")
}

func (f *Flow) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Flow) wait(ctx context.Context, d time.Duration) error {
	if f.Wait != nil {
		return f.Wait(ctx, d)
	}
	return pause.For(ctx, d)
}

// post sends form to path on the web host, asking for JSON, and decodes
// the answer into out; a refusal returns an *OAuthError.
func (f *Flow) post(ctx context.Context, path string, form url.Values, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.web()+path, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	c := f.HTTP
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s%s: %w", f.web(), path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("POST %s%s: read the answer: %w", f.web(), path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s%s: %s (is GITHUB_SERVER_URL the GitHub web host, and is the App's device flow enabled?)", f.web(), path, resp.Status)
	}
	var e OAuthError
	if json.Unmarshal(b, &e) == nil && e.Code != "" {
		return &e
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("POST %s%s: the answer is not JSON: %w", f.web(), path, err)
	}
	return nil
}

// Request asks GitHub for a device code and a user code.
func (f *Flow) Request(ctx context.Context) (Code, error) {
	if f.ClientID == "" {
		return Code{}, errors.New("no OAuth client id: pass --client-id or --console-url (the console's /api/config names it)")
	}
	var c Code
	if err := f.post(ctx, "/login/device/code", url.Values{"client_id": {f.ClientID}}, &c); err != nil {
		return Code{}, fmt.Errorf("request a device code: %w", err)
	}
	if c.DeviceCode == "" || c.UserCode == "" {
		return Code{}, errors.New("request a device code: GitHub answered without a device code")
	}
	return c, nil
}

// Poll polls until the user authorises code, denies it, or it expires,
// waiting the interval before each poll and five seconds more (or what
// GitHub says) after each slow_down.
func (f *Flow) Poll(ctx context.Context, c Code) (Token, error) {
	interval := time.Duration(c.Interval) * time.Second
	deadline := f.now().Add(time.Duration(c.ExpiresIn) * time.Second)
	for {
		if err := f.wait(ctx, interval); err != nil {
			return Token{}, fmt.Errorf("wait for the sign-in: %w", err)
		}
		var answer struct {
			AccessToken           string `json:"access_token"`
			RefreshToken          string `json:"refresh_token"`
			ExpiresIn             int    `json:"expires_in"`
			RefreshTokenExpiresIn int    `json:"refresh_token_expires_in"`
			Interval              int    `json:"interval"`
		}
		err := f.post(ctx, "/login/oauth/access_token", url.Values{
			"client_id": {f.ClientID}, "device_code": {c.DeviceCode}, "grant_type": {deviceGrant},
		}, &answer)
		var oe *OAuthError
		switch {
		case errors.As(err, &oe) && oe.Code == "authorization_pending":
			if c.ExpiresIn > 0 && !f.now().Before(deadline) {
				return Token{}, ErrExpired
			}
			continue
		case errors.As(err, &oe) && oe.Code == "slow_down":
			// GitHub names the new interval; five seconds more when not.
			interval += 5 * time.Second
			if oe.Interval > 0 {
				interval = time.Duration(oe.Interval) * time.Second
			}
			continue
		case errors.As(err, &oe) && oe.Code == "expired_token":
			return Token{}, ErrExpired
		case errors.As(err, &oe) && oe.Code == "access_denied":
			return Token{}, ErrDenied
		case err != nil:
			return Token{}, fmt.Errorf("poll for the token: %w", err)
		case answer.AccessToken == "":
			return Token{}, errors.New("poll for the token: GitHub answered without a token")
		}
		t := Token{AccessToken: answer.AccessToken, RefreshToken: answer.RefreshToken}
		now := f.now().UTC().Truncate(time.Second)
		if answer.ExpiresIn > 0 {
			t.ExpiresAt = now.Add(time.Duration(answer.ExpiresIn) * time.Second)
		}
		if answer.RefreshTokenExpiresIn > 0 {
			t.RefreshExpiresAt = now.Add(time.Duration(answer.RefreshTokenExpiresIn) * time.Second)
		}
		return t, nil
	}
}
