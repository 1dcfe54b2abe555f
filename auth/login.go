package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// Login runs the whole sign-in: a code, printed with the page to enter it
// on (and the page opened when f.Open is set), then polling until the user
// answers. It never prints the token.
func (f *Flow) Login(ctx context.Context, out io.Writer) (Token, error) {
	code, err := f.Request(ctx)
	if err != nil {
		return Token{}, err
	}
	fmt.Fprintf(out, "First copy your one-time code: %s\n", code.UserCode)
	if f.Open == nil {
		fmt.Fprintf(out, "Then open %s in a browser and enter it.\n", code.VerificationURI)
	} else {
		fmt.Fprintf(out, "Opening %s in your browser; enter the code there.\n", code.VerificationURI)
		if err := f.Open(ctx, code.VerificationURI); err != nil {
			fmt.Fprintf(out, "Could not open a browser (%v): open %s yourself.\n", err, code.VerificationURI)
		}
	}
	fmt.Fprintln(out, "Waiting for you to authorise the app on GitHub…")
	return f.Poll(ctx, code)
}

// APIURL is the REST API of a web host: api.github.com for github.com,
// {web}/api/v3 for an Enterprise Server.
func APIURL(web string) string {
	web = strings.TrimSuffix(web, "/")
	if web == "" || web == PublicWeb {
		return "https://api.github.com"
	}
	return web + "/api/v3"
}

// User returns the login the token acts as (GET /user).
func User(ctx context.Context, c *http.Client, apiURL, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(apiURL, "/")+"/user", nil)
	if err != nil {
		return "", fmt.Errorf("GET /user: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("GET %s/user: %w", apiURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s/user: %s", apiURL, resp.Status)
	}
	var u struct {
		Login string `json:"login"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&u); err != nil || u.Login == "" {
		return "", fmt.Errorf("GET %s/user: no login in the answer", apiURL)
	}
	return u.Login, nil
}

// ConsoleClientID asks a console for the App's client id (GET /api/config).
func ConsoleClientID(ctx context.Context, c *http.Client, consoleURL string) (string, error) {
	u := strings.TrimSuffix(consoleURL, "/") + "/api/config"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", u, err)
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("ask the console for the client id: GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	var cfg struct {
		ClientID string `json:"client_id"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("ask the console for the client id: GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&cfg); err != nil || cfg.ClientID == "" {
		return "", fmt.Errorf("ask the console for the client id: GET %s names none: pass --client-id", u)
	}
	return cfg.ClientID, nil
}

// SignIn runs f's sign-in, asks GitHub who the token acts as, and saves
// both to home/auth.json.
func SignIn(ctx context.Context, home string, f *Flow, apiURL string, out io.Writer) (*Credentials, error) {
	tok, err := f.Login(ctx, out)
	if err != nil {
		return nil, err
	}
	login, err := User(ctx, f.HTTP, apiURL, tok.AccessToken)
	if err != nil {
		return nil, fmt.Errorf("find who signed in: %w", err)
	}
	c := &Credentials{Token: tok.AccessToken, RefreshToken: tok.RefreshToken, Login: login,
		ClientID: f.ClientID, WebURL: f.web(), APIURL: apiURL, CreatedAt: f.now().UTC().Truncate(time.Second)}
	if !tok.ExpiresAt.IsZero() {
		c.ExpiresAt = &tok.ExpiresAt
	}
	if !tok.RefreshExpiresAt.IsZero() {
		c.RefreshExpiresAt = &tok.RefreshExpiresAt
	}
	if err := Save(home, c); err != nil {
		return nil, err
	}
	return c, nil
}

// Browser opens a URL with xdg-open (open on macOS), which hands it to the
// browser and returns.
func Browser(goos string) func(ctx context.Context, url string) error {
	name := "xdg-open"
	if goos == "darwin" {
		name = "open"
	}
	return func(ctx context.Context, url string) error {
		if out, err := exec.CommandContext(ctx, name, url).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %w %s", name, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
}
