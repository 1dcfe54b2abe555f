package bot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInstallationTokensRefresh: git gets the same installation token
// while it is fresh, and a new one once it would expire within the
// margin, so a session longer than a token's hour still pushes.
func TestInstallationTokensRefresh(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	base := f.bot.Base()
	now := time.Now()
	base.Now = func() time.Time { return now }
	tokens := base.installationTokens(testInstallationID)
	first, err := tokens(t.Context())
	require.NoError(t, err)
	require.NotEmpty(t, first)
	again, err := tokens(t.Context())
	require.NoError(t, err)
	assert.Equal(t, first, again, "a fresh token is reused")

	now = now.Add(time.Hour - tokenMargin + time.Second) // within the margin of its expiry
	later, err := tokens(t.Context())
	require.NoError(t, err)
	assert.NotEqual(t, first, later, "a token about to expire is replaced")
}
