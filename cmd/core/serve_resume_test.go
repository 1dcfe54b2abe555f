package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/remote"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/setup"
)

// TestServeCommandFlags: an instruction's limits, its budget included,
// are the flags it runs with; one that resumes a session (a top-up from
// the console) runs with that session's model, verify tier and endpoint,
// and only on that session's own repository.
func TestServeCommandFlags(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "sessions", "20261201-080000-ab12")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.json"), []byte(
		`{"id":"20261201-080000-ab12","repo":"acme/app","model":"m-session","verify":"build","inference_url":"http://127.0.0.1:9/v1","status":"budget_exhausted"}`), 0o600))
	e := &env{getenv: func(k string) string {
		if k == "CORE_HOME" {
			return home
		}
		return ""
	}}
	f := &serveFlags{session: sessionFlags{vals: setup.Values{setup.Model: "m-flag"}, interactive: true}}
	once := &serveFlags{session: f.session, allowLand: true, once: true}

	one, defaults, err := e.commandFlags(f, &remote.Command{Repo: "acme/app", Limits: remote.Limits{MaxTurns: 7, BudgetUSD: 2.5}})
	require.NoError(t, err)
	assert.Equal(t, setup.Values{setup.Model: "m-flag", setup.MaxTurns: "7", setup.BudgetUSD: "2.5", setup.DryRun: "true"}, one.vals)
	assert.False(t, one.interactive)
	assert.Equal(t, serveDefaults, defaults)
	assert.Equal(t, setup.Values{setup.Model: "m-flag"}, f.session.vals, "serve's own flags are left as they were")

	_, defaults, err = e.commandFlags(once, &remote.Command{Repo: "acme/app"})
	require.NoError(t, err)
	assert.Equal(t, "0", defaults[setup.IdleTimeout], "--once completes at done")
	assert.Equal(t, session.IdleAttended.String(), serveDefaults[setup.IdleTimeout], "serve's defaults are left as they were")

	one, defaults, err = e.commandFlags(f, &remote.Command{Repo: "acme/app", Resume: "20261201-080000-ab12", Limits: remote.Limits{BudgetUSD: 2}})
	require.NoError(t, err)
	assert.Equal(t, "m-session", one.vals[setup.Model], "the session's model")
	assert.Equal(t, "build", one.vals[setup.Verify])
	assert.Equal(t, "2", one.vals[setup.BudgetUSD], "the top-up")
	assert.Equal(t, "http://127.0.0.1:9/v1", defaults[setup.InferenceURL])
	assert.NotContains(t, serveDefaults, setup.InferenceURL, "serve's defaults are left as they were")

	_, _, err = e.commandFlags(f, &remote.Command{Repo: "acme/lib", Resume: "20261201-080000-ab12"})
	require.ErrorContains(t, err, "session 20261201-080000-ab12 is on acme/app, not on acme/lib")
	_, _, err = e.commandFlags(f, &remote.Command{Repo: "acme/app", Resume: "20261201-090000-cd34"})
	require.ErrorContains(t, err, "no session 20261201-090000-cd34")
}
