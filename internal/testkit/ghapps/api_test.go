package ghapps

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitHubFindRepositoryInstallation(t *testing.T) {
	t.Parallel()
	g, key := newAppGitHub(t)
	g.MustAddRepo(t, "owner", "later", nil)
	tests := []struct {
		name, owner, repo string
		wantID            int64
	}{
		{name: "all of the owner's", owner: "owner", repo: "secret", wantID: 7},
		{name: "added after installing", owner: "owner", repo: "later", wantID: 7},
		{name: "selected", owner: "stranger", repo: "only", wantID: 8},
		{name: "not selected", owner: "stranger", repo: "other"},
		{name: "no such repository", owner: "owner", repo: "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := g.Client(t, signJWT(t, key, appClaims("4242", -time.Minute, 5*time.Minute)))
			in, resp, err := client.Apps.FindRepositoryInstallation(t.Context(), tt.owner, tt.repo)
			if tt.wantID == 0 {
				require.Error(t, err)
				assert.Equal(t, http.StatusNotFound, resp.StatusCode)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantID, in.GetID())
			assert.Equal(t, int64(testAppID), in.GetAppID())
			assert.Equal(t, tt.owner, in.GetAccount().GetLogin())
		})
	}
	client := g.Client(t, signJWT(t, key, appClaims("4242", -time.Minute, 5*time.Minute)))
	in, _, err := client.Apps.GetInstallation(t.Context(), 8)
	require.NoError(t, err)
	assert.Equal(t, "selected", in.GetRepositorySelection())
	_, resp, err := client.Apps.GetInstallation(t.Context(), 9)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestGitHubCreateInstallationToken(t *testing.T) {
	t.Parallel()
	g, key := newAppGitHub(t)
	ctx := t.Context()
	app := g.Client(t, signJWT(t, key, appClaims("4242", -time.Minute, 5*time.Minute)))
	tok, resp, err := app.Apps.CreateInstallationToken(ctx, 7, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.True(t, strings.HasPrefix(tok.GetToken(), "ghs_"), tok.GetToken())
	assert.WithinDuration(t, time.Now().Add(time.Hour), tok.GetExpiresAt().Time, time.Minute)
	assert.Equal(t, "write", tok.GetPermissions().GetContents())

	bot := g.Client(t, tok.GetToken())
	_, resp, err = bot.Users.Get(ctx, "")
	require.Error(t, err, "GET /user refuses installation tokens, as GitHub does")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	reqs := g.Requests()
	assert.Equal(t, "core-app[bot]", reqs[len(reqs)-1].Login, "the token acts as the app's bot")
	repo, _, err := bot.Repositories.Get(ctx, "owner", "secret")
	require.NoError(t, err)
	assert.True(t, repo.GetPermissions()["push"], "the token writes to the installation's repositories")
	_, resp, err = bot.Repositories.Get(ctx, "stranger", "only")
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "another installation's repository is out of reach")

	narrow, _, err := app.Apps.CreateInstallationToken(ctx, 8, &github.InstallationTokenOptions{Repositories: []string{"only"}})
	require.NoError(t, err)
	require.Len(t, narrow.Repositories, 1)
	assert.Equal(t, "stranger/only", narrow.Repositories[0].GetFullName())
	_, resp, err = app.Apps.CreateInstallationToken(ctx, 8, &github.InstallationTokenOptions{Repositories: []string{"other"}})
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	_, resp, err = app.Apps.CreateInstallationToken(ctx, 99, nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, resp, err = g.Client(t, tok.GetToken()).Apps.CreateInstallationToken(ctx, 7, nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "an installation token cannot make tokens")

	g.ExpireToken(tok.GetToken())
	_, resp, err = bot.Repositories.Get(ctx, "owner", "secret")
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, "Bad credentials", errorResponse(t, err).Message)

	var made []int
	for _, r := range g.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/access_tokens") {
			made = append(made, r.Status)
		}
	}
	assert.Equal(t, []int{201, 201, 422, 404, 401}, made, "token requests are recorded with their answers")
}
