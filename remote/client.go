// Package remote is the command line's client of the console's JSON API:
// it delivers session reports (and keeps the undelivered ones pending),
// and queues, claims and answers instructions. The command line talks to
// the console only through it, never to the console's store.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Client talks to one console with one bearer token.
type Client struct {
	// URL is the console's address, e.g. https://core.example.com.
	URL string
	// Token is the bearer: a GitHub token of the App (installation, or
	// user-to-server from core auth login).
	Token string
	HTTP  *http.Client
}

// Error is the console's refusal: its status and what it said.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("the console answered %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// Refused reports whether err is the console refusing the request for
// what it holds (400, 413, 422): sending it again will not help. A refused
// credential (401, 403) is not: a new sign-in may fix it.
func Refused(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Status == http.StatusBadRequest ||
		e.Status == http.StatusRequestEntityTooLarge || e.Status == http.StatusUnprocessableEntity)
}

// do sends body (raw JSON, or nil) and decodes a 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	u := strings.TrimSuffix(c.URL, "/") + path
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, u, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: read the answer: %w", method, u, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return resp.StatusCode, &Error{Status: resp.StatusCode, Message: msg}
	}
	if out != nil && resp.StatusCode != http.StatusNoContent && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: the answer is not JSON: %w", method, u, err)
		}
	}
	return resp.StatusCode, nil
}

// PostReport stores a session's report.json on the console (by its
// session id: sending it twice replaces it) and says whether it was new.
func (c *Client) PostReport(ctx context.Context, report []byte) (created bool, err error) {
	var out struct {
		Created bool `json:"created"`
	}
	if _, err := c.do(ctx, http.MethodPost, "/api/session-runs", report, &out); err != nil {
		return false, fmt.Errorf("deliver the report: %w", err)
	}
	return out.Created, nil
}
