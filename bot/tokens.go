package bot

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/coreagent/core/gh"
)

// tokenMargin is how long before its expiry an installation token is
// replaced: a push that starts with it must finish with it.
const tokenMargin = 10 * time.Minute

// installationTokens is a token source for git as an installation: it
// mints an installation token, and a new one when the last expires within
// tokenMargin (they live an hour; a session may run two).
func (b *Base) installationTokens(installationID int64) gh.TokenSource {
	var (
		mu      sync.Mutex
		token   string
		expires time.Time
	)
	return func(ctx context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if token != "" && b.Now().Add(tokenMargin).Before(expires) {
			return token, nil
		}
		app, err := b.NewAppClient()
		if err != nil {
			return "", fmt.Errorf("app client: %w", err)
		}
		tok, _, err := app.Apps.CreateInstallationToken(ctx, installationID, nil)
		if err != nil {
			return "", fmt.Errorf("installation token for %d: %w", installationID, err)
		}
		token, expires = tok.GetToken(), tok.GetExpiresAt().Time
		return token, nil
	}
}
