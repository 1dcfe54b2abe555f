package bot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The files `core bot setup` writes into the data directory, all 0600, and
// `core bot` reads when its settings do not name the App.
const (
	appFile        = "app.json"            // AppFiles without the secrets
	appKeyFile     = "app-private-key.pem" // the App's private key
	appSecretsFile = "app-secrets.json"    // the webhook secret and the OAuth client secret
)

// AppFiles is a GitHub App's registration as the manifest flow returned it.
type AppFiles struct {
	AppID      int64  `json:"app_id"`
	Slug       string `json:"slug"`
	Name       string `json:"name"`
	Owner      string `json:"owner"`
	HTMLURL    string `json:"html_url"`
	WebhookURL string `json:"webhook_url"`
	ClientID   string `json:"client_id"`

	PrivateKey    []byte `json:"-"`
	WebhookSecret string `json:"-"`
	ClientSecret  string `json:"-"`
}

type appSecrets struct {
	WebhookSecret string `json:"webhook_secret"`
	ClientSecret  string `json:"client_secret"`
}

// InstallURL is where the App is installed on repositories.
func (a *AppFiles) InstallURL() string { return a.HTMLURL + "/installations/new" }

// HasAppFiles reports whether dir already holds an App's registration.
func HasAppFiles(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, appFile))
	return err == nil
}

// WriteAppFiles writes a registration into dir (created 0700 when
// missing), each file 0600. It never replaces a registration: a second App
// in the same directory is refused, so no key is ever lost.
func WriteAppFiles(dir string, a *AppFiles) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory %s: %w", dir, err)
	}
	if HasAppFiles(dir) {
		return fmt.Errorf("%s already holds a GitHub App (%s): remove it, or give another --data-dir", dir, appFile)
	}
	meta, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	secrets, err := json.MarshalIndent(appSecrets{WebhookSecret: a.WebhookSecret, ClientSecret: a.ClientSecret}, "", "  ")
	if err != nil {
		return err
	}
	// The key and the secrets first: app.json, last, says the set is whole.
	for _, f := range []struct {
		name string
		data []byte
	}{{appKeyFile, a.PrivateKey}, {appSecretsFile, append(secrets, '\n')}, {appFile, append(meta, '\n')}} {
		if err := writeNew(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

// writeNew creates path, 0600, failing if anything is there already, and
// syncs it.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// ReadAppFiles reads the registration in dir; ok is false when there is
// none.
func ReadAppFiles(dir string) (a *AppFiles, ok bool, err error) {
	meta, err := os.ReadFile(filepath.Join(dir, appFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the App's registration: %w", err)
	}
	a = &AppFiles{}
	if err := json.Unmarshal(meta, a); err != nil {
		return nil, false, fmt.Errorf("read the App's registration: %s is damaged: %w", filepath.Join(dir, appFile), err)
	}
	if a.PrivateKey, err = os.ReadFile(filepath.Join(dir, appKeyFile)); err != nil {
		return nil, false, fmt.Errorf("read the App's private key: %w", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, appSecretsFile))
	if err != nil {
		return nil, false, fmt.Errorf("read the App's secrets: %w", err)
	}
	var s appSecrets
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false, fmt.Errorf("read the App's secrets: %s is damaged: %w", filepath.Join(dir, appSecretsFile), err)
	}
	a.WebhookSecret, a.ClientSecret = s.WebhookSecret, s.ClientSecret
	return a, true, nil
}

// FillFromAppFiles completes c from the registration in its data
// directory: what the settings give wins, what they leave out comes from
// the files `core bot setup` wrote.
func (c *Config) FillFromAppFiles() error {
	if c.DataDir == "" || (c.AppID != 0 && len(c.PrivateKey) != 0 && c.WebhookSecret != "") {
		return nil
	}
	a, ok, err := ReadAppFiles(c.DataDir)
	if err != nil || !ok {
		return err
	}
	if c.AppID == 0 {
		c.AppID = a.AppID
	}
	if len(c.PrivateKey) == 0 {
		c.PrivateKey = a.PrivateKey
	}
	if c.WebhookSecret == "" {
		c.WebhookSecret = a.WebhookSecret
	}
	return nil
}
