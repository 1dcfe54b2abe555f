package bot

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/console"
)

func TestConsoleShowsTheBotsRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	store, err := console.Open(t.Context(), filepath.Join(f.dataDir, "console.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	clientID, secret, err := f.apps.AppOAuth(testAppID)
	require.NoError(t, err)
	assert.ErrorContains(t, f.bot.MountConsole(ConsoleConfig{Org: "octo"}, store), "CORE_BOT_CLIENT_ID")
	require.NoError(t, f.bot.MountConsole(ConsoleConfig{Org: "octo", ClientID: clientID, ClientSecret: secret, WebURL: f.g.URL}, store))

	now := time.Now().UTC()
	_, _, err = f.store.CreateRun(t.Context(), &Run{ID: "r-bot-1", Repo: "octo/hello", Number: 3, Kind: KindFix,
		Instruction: "fix", Actor: "alice", State: StateRunning, CreatedAt: now, UpdatedAt: now})
	require.NoError(t, err)
	token, err := f.apps.AddUserToken(testAppID, "alice")
	require.NoError(t, err)

	call := func(method, path, body string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), method, f.http.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	status, body := call(http.MethodPost, "/api/session-runs",
		`{"id":"cli-1","repo":"octo/hello","status":"succeeded","started_at":"2020-01-01T00:00:00Z"}`)
	require.Equal(t, http.StatusCreated, status, body)
	status, body = call(http.MethodGet, "/api/session-runs", "")
	require.Equal(t, http.StatusOK, status, body)
	var list struct{ Runs []*console.Run }
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list.Runs, 2)
	assert.Equal(t, "r-bot-1", list.Runs[0].SessionID, "the bot's run, newest")
	assert.Equal(t, console.TriggerBot, list.Runs[0].Trigger)
	assert.Equal(t, StateRunning, list.Runs[0].Status)
	assert.Equal(t, 3, list.Runs[0].Issue, "its issue, for the console's link")
	assert.Equal(t, "fix", list.Runs[0].Goal, "what it was asked")
	assert.Equal(t, "cli-1", list.Runs[1].SessionID)

	status, _ = call(http.MethodGet, "/healthz", "")
	assert.Equal(t, http.StatusOK, status, "the bot's own endpoints still answer")
	status, _ = call(http.MethodGet, "/", "")
	assert.Equal(t, http.StatusOK, status, "the console's sign-in page")
	status, _ = call(http.MethodGet, "/nope", "")
	assert.Equal(t, http.StatusNotFound, status)
}
