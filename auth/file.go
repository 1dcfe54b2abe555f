package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FileName is the credentials file under $CORE_HOME.
const FileName = "auth.json"

// Credentials are what auth.json holds.
type Credentials struct {
	Token        string `json:"token"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// ExpiresAt is absent for a token that does not expire.
	ExpiresAt        *time.Time `json:"expires_at,omitempty"`
	RefreshExpiresAt *time.Time `json:"refresh_token_expires_at,omitempty"`
	Login            string     `json:"login"`
	ClientID         string     `json:"client_id"`
	WebURL           string     `json:"web_url"`
	APIURL           string     `json:"api_url"`
	CreatedAt        time.Time  `json:"created_at"`
}

// Expired reports whether the token has expired at now.
func (c *Credentials) Expired(now time.Time) bool {
	return c.ExpiresAt != nil && !now.Before(*c.ExpiresAt)
}

// ErrSignedOut is Load's error when there is no auth.json.
var ErrSignedOut = errors.New("not signed in: run core auth login")

// Save writes c to home/auth.json, 0600, atomically (a temporary file
// renamed over it).
func Save(home string, c *Credentials) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("save the credentials: %w", err)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("save the credentials: %w", err)
	}
	tmp, err := os.CreateTemp(home, ".auth-*.json")
	if err != nil {
		return fmt.Errorf("save the credentials: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("save the credentials: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("save the credentials: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save the credentials: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(home, FileName)); err != nil {
		return fmt.Errorf("save the credentials: %w", err)
	}
	return nil
}

// Load reads home/auth.json; ErrSignedOut when there is none.
func Load(home string) (*Credentials, error) {
	b, err := os.ReadFile(filepath.Join(home, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrSignedOut
	}
	if err != nil {
		return nil, fmt.Errorf("read the credentials: %w", err)
	}
	var c Credentials
	if err := json.Unmarshal(b, &c); err != nil || c.Token == "" {
		return nil, fmt.Errorf("%s is damaged (%v): run core auth login again", filepath.Join(home, FileName), err)
	}
	return &c, nil
}

// Remove deletes home/auth.json and reports whether there was one.
func Remove(home string) (bool, error) {
	err := os.Remove(filepath.Join(home, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove the credentials: %w", err)
	}
	return true, nil
}
