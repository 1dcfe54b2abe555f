package remote_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/console"
	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
	"github.com/coreagent/core/remote"
)

const appID = 4242

// newConsole serves the real console of acme on a testkit GitHub where
// the App is installed on acme and octo writes to acme/app; it returns a
// client with octo's user-to-server token, and the store.
func newConsole(t *testing.T, opts ...func(*console.Config)) (*remote.Client, *console.SQL) {
	t.Helper()
	g := ghfake.NewGitHub(t)
	g.MustAddRepo(t, "acme", "app", map[string]string{"README.md": "# app\n"}, ghfake.Private(true))
	require.NoError(t, g.SetPermission("acme", "app", "octo", "write"))
	apps := ghapps.New(g)
	pem, err := apps.AddApp(appID)
	require.NoError(t, err)
	require.NoError(t, apps.AddInstallation(appID, 7, "acme"))
	tok, err := apps.AddUserToken(appID, "octo")
	require.NoError(t, err)
	store, err := console.Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	id, secret, err := apps.AppOAuth(appID)
	require.NoError(t, err)
	cc := githubapp.NewClientCreator(g.APIURL()+"/", g.URL+"/api/graphql", appID, pem)
	cfg := console.Config{Store: store, Org: "acme", AppID: appID, ClientID: id, ClientSecret: secret,
		APIURL: g.APIURL(), WebURL: g.URL, App: console.NewApp(cc), Logger: zerolog.Nop()}
	for _, o := range opts {
		o(&cfg)
	}
	c, err := console.New(cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return &remote.Client{URL: srv.URL, Token: tok}, store
}

// SIGTERM while an instruction runs: the session is cancelled, the claim
// released (the instruction is queued again), and serve stops.
func TestServeReleasesTheClaimOnSIGTERM(t *testing.T) {
	t.Parallel()
	client, store := newConsole(t)
	queued, err := client.Enqueue(t.Context(), remote.Order{Repo: "acme/app", Instruction: "make it louder"})
	require.NoError(t, err)

	ctx, sigterm := context.WithCancel(t.Context())
	defer sigterm()
	var out bytes.Buffer
	s := &remote.Serve{
		Console: client, Repos: []string{"acme/app"}, PollWait: 5 * time.Second, Out: &out,
		Audit: &remote.Audit{Path: filepath.Join(t.TempDir(), "audit.jsonl")},
		Run: func(ctx context.Context, c *remote.Command) remote.Result {
			assert.Equal(t, queued.ID, c.ID)
			sigterm() // the signal arrives mid-session
			<-ctx.Done()
			return remote.Result{Status: remote.Released, Error: "serve was stopped"}
		},
	}
	require.NoError(t, s.Loop(ctx))
	assert.Contains(t, out.String(), "instruction 1: released")

	cmds, err := store.Commands(t.Context(), "octo", 10)
	require.NoError(t, err)
	require.Len(t, cmds, 1)
	assert.Equal(t, console.CommandQueued, cmds[0].State, "released back to the queue")
	again, err := client.Claim(t.Context(), 0)
	require.NoError(t, err)
	require.NotNil(t, again)
	assert.Equal(t, 2, again.Attempts)

	n, err := remote.VerifyAudit(s.Audit.Path)
	require.NoError(t, err)
	assert.Equal(t, 4, n, "start, claim, result, stop")
}

// A token the console refuses ends serve with what to do.
func TestServeStopsOnARefusedToken(t *testing.T) {
	t.Parallel()
	client, _ := newConsole(t)
	client.Token = "ghu_notatoken"
	s := &remote.Serve{Console: client, Repos: []string{"acme/app"}, Out: &bytes.Buffer{}}
	err := s.Loop(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "run core auth login")
}

// A session longer than the lease keeps its claim: serve renews it, and
// the result is accepted.
func TestServeRenewsTheLease(t *testing.T) {
	t.Parallel()
	client, store := newConsole(t, func(c *console.Config) { c.Lease = 2 * time.Second })
	_, err := client.Enqueue(t.Context(), remote.Order{Repo: "acme/app", Instruction: "a long one"})
	require.NoError(t, err)
	renewed := make(chan *remote.Command, 4)
	var out bytes.Buffer
	s := &remote.Serve{
		Console: client, Repos: []string{"acme/app"}, PollWait: 5 * time.Second, Out: &out, Once: true,
		OnRenew: func(c *remote.Command) { renewed <- c },
		Run: func(ctx context.Context, c *remote.Command) remote.Result {
			select {
			case r := <-renewed:
				assert.True(t, r.LeaseUntil.After(c.LeaseUntil), "the lease moved on")
			case <-time.After(time.Minute):
				t.Error("the lease was never renewed")
			}
			return remote.Result{Status: remote.Succeeded, Summary: "done at last"}
		},
	}
	require.NoError(t, s.Loop(t.Context()))
	cmds, err := store.Commands(t.Context(), "octo", 10)
	require.NoError(t, err)
	require.Len(t, cmds, 1)
	require.NotNil(t, cmds[0].Result, out.String())
	assert.Equal(t, remote.Succeeded, cmds[0].Result.Status)
}

// serve runs instructions for the repositories it was given (--repo, any
// case) and declines the others without running them: the console says
// so to the person who queued it.
func TestServeRunsOnlyItsRepositories(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		repos   []string
		wantRun bool
	}{
		{name: "listed", repos: []string{"acme/lib", "acme/app"}, wantRun: true},
		{name: "listed in another case", repos: []string{"ACME/App"}, wantRun: true},
		{name: "not listed", repos: []string{"acme/lib"}},
		{name: "a prefix of it", repos: []string{"acme/ap"}},
		{name: "its owner only", repos: []string{"acme"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, store := newConsole(t)
			_, err := client.Enqueue(t.Context(), remote.Order{Repo: "acme/app", Instruction: "make it louder"})
			require.NoError(t, err)
			ran := false
			var out bytes.Buffer
			s := &remote.Serve{
				Console: client, Repos: tt.repos, PollWait: 5 * time.Second, Out: &out, Once: true,
				Run: func(context.Context, *remote.Command) remote.Result {
					ran = true
					return remote.Result{Status: remote.Succeeded, Summary: "louder"}
				},
			}
			require.NoError(t, s.Loop(t.Context()))
			assert.Equal(t, tt.wantRun, ran, out.String())
			cmds, err := store.Commands(t.Context(), "octo", 10)
			require.NoError(t, err)
			require.Len(t, cmds, 1)
			require.NotNil(t, cmds[0].Result, out.String())
			if tt.wantRun {
				assert.Equal(t, remote.Succeeded, cmds[0].Result.Status)
				return
			}
			assert.Equal(t, remote.Declined, cmds[0].Result.Status)
			assert.Contains(t, cmds[0].Result.Error, "acme/app is not a repository this machine serves (--repo "+tt.repos[0])
		})
	}
}
