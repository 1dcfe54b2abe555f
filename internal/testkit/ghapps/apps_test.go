package ghapps

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

const testAppID = 4242

// newAppGitHub starts a GitHub with app testAppID installed (installation
// 7) on all of owner's repositories: repo (public) and secret (private),
// and installed (installation 8) on stranger/only of stranger's two.
func newAppGitHub(t *testing.T) (*double, *rsa.PrivateKey) {
	t.Helper()
	g, _ := newTestGitHub(t, nil)
	g.MustAddRepo(t, "owner", "secret", nil, ghfake.Private(true))
	g.MustAddRepo(t, "stranger", "only", nil, ghfake.Private(true))
	g.MustAddRepo(t, "stranger", "other", nil, ghfake.Private(true))
	pemKey, err := g.AddApp(testAppID)
	require.NoError(t, err)
	key, err := jwt.ParseRSAPrivateKeyFromPEM(pemKey)
	require.NoError(t, err)
	require.NoError(t, g.AddInstallation(testAppID, 7, "owner"))
	require.NoError(t, g.AddInstallation(testAppID, 8, "stranger", "only"))
	return g, key
}

func signJWT(t *testing.T, key *rsa.PrivateKey, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(key)
	require.NoError(t, err)
	return s
}

func appClaims(iss any, iat, exp time.Duration) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"iss": iss, "iat": now.Add(iat).Unix(), "exp": now.Add(exp).Unix()}
}

func TestAddAppAndInstallationValidate(t *testing.T) {
	t.Parallel()
	g, _ := newAppGitHub(t)
	_, err := g.AddApp(testAppID)
	assert.ErrorContains(t, err, "already exists")
	_, err = g.AddApp(0)
	assert.ErrorContains(t, err, "positive")
	assert.ErrorContains(t, g.AddInstallation(99, 9, "owner"), "no such app")
	assert.ErrorContains(t, g.AddInstallation(testAppID, 7, "owner"), "taken")
	assert.ErrorContains(t, g.AddInstallation(testAppID, 9, "owner", "nope"), "no repository owner/nope")
}

func TestGitHubAppJWT(t *testing.T) {
	t.Parallel()
	g, key := newAppGitHub(t)
	otherKey, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	hmac, err := jwt.NewWithClaims(jwt.SigningMethodHS256, appClaims("4242", -time.Minute, 5*time.Minute)).SignedString([]byte("k"))
	require.NoError(t, err)
	tests := []struct {
		name    string
		token   string
		wantErr string
	}{
		{name: "iss as string", token: signJWT(t, key, appClaims("4242", -30*time.Second, 2*time.Minute))},
		{name: "iss as number, GitHub's documented window", token: signJWT(t, key, appClaims(4242, -time.Minute, 10*time.Minute))},
		{name: "expired", token: signJWT(t, key, appClaims("4242", -20*time.Minute, -10*time.Minute)), wantErr: jwtExpired},
		{name: "too long", token: signJWT(t, key, appClaims("4242", 0, 11*time.Minute)), wantErr: jwtTooLong},
		{name: "issued in the future", token: signJWT(t, key, appClaims("4242", 5*time.Minute, 6*time.Minute)), wantErr: jwtIssuedLater},
		{name: "no iat", token: signJWT(t, key, jwt.MapClaims{"iss": "4242", "exp": time.Now().Add(time.Minute).Unix()}), wantErr: jwtIssuedLater},
		{name: "unknown app", token: signJWT(t, key, appClaims("1", 0, time.Minute)), wantErr: jwtUndecodable},
		{name: "other key", token: signJWT(t, otherKey, appClaims("4242", 0, time.Minute)), wantErr: jwtUndecodable},
		{name: "HS256", token: hmac, wantErr: jwtUndecodable},
		{name: "a user token", token: ownerToken, wantErr: jwtUndecodable},
		{name: "nothing", wantErr: jwtUndecodable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app, resp, err := g.Client(t, tt.token).Apps.Get(t.Context(), "")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
				assert.Equal(t, tt.wantErr, errorResponse(t, err).Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, int64(testAppID), app.GetID())
			assert.Equal(t, "core-app", app.GetSlug())
			assert.NotEmpty(t, app.GetName())
		})
	}
}
