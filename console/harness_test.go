package console

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/coreagent/core/internal/testkit/ghfake"
)

const (
	appID     = 4242
	foreignID = 999
	org       = "acme"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// lockedBuffer is a log sink tests read.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// harness is a console on a testkit GitHub where the App (4242) is
// installed on acme (installation 7) and on elsewhere (9), and a foreign
// app (999, other-app) on acme (8). alice and bob write to acme/app;
// mallory has no role in acme.
type harness struct {
	g       *ghfake.GitHub
	apps    *ghapps.Apps
	console *Console
	srv     *httptest.Server
	store   *SQL
	cfg     Config
	clock   *clock
	log     *lockedBuffer

	install, foreignInstall, elsewhereInstall string // installation tokens
	alice, alice2, bob, mallory               string // user tokens of the App
	aliceForeign                              string // alice's user token of the foreign app
	pat                                       string // alice's personal token
}

type harnessOption func(*Config)

func newHarness(t *testing.T, store *SQL, opts ...harnessOption) *harness {
	t.Helper()
	g := ghfake.NewGitHub(t)
	g.MustAddRepo(t, org, "app", map[string]string{"README.md": "# app\n"}, ghfake.Private(true))
	g.MustAddRepo(t, org, "lib", map[string]string{"README.md": "# lib\n"}, ghfake.Private(true))
	g.MustAddRepo(t, "elsewhere", "thing", map[string]string{"README.md": "# thing\n"}, ghfake.Private(true))
	for _, u := range []string{"alice", "bob"} {
		require.NoError(t, g.SetPermission(org, "app", u, "write"))
	}
	require.NoError(t, g.SetPermission(org, "lib", "bob", "read"))
	apps := ghapps.New(g)
	pemKey, err := apps.AddApp(appID)
	require.NoError(t, err)
	_, err = apps.AddApp(foreignID)
	require.NoError(t, err)
	require.NoError(t, apps.SetAppSlug(foreignID, "other-app"))
	require.NoError(t, apps.AddInstallation(appID, 7, org))
	require.NoError(t, apps.AddInstallation(foreignID, 8, org))
	require.NoError(t, apps.AddInstallation(appID, 9, "elsewhere"))
	h := &harness{g: g, apps: apps, store: store, clock: &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}, log: &lockedBuffer{}}
	mint := func(id int64) string {
		tok, err := apps.InstallationToken(id)
		require.NoError(t, err)
		return tok
	}
	user := func(app int64, login string) string {
		tok, err := apps.AddUserToken(app, login)
		require.NoError(t, err)
		return tok
	}
	h.install, h.foreignInstall, h.elsewhereInstall = mint(7), mint(8), mint(9)
	h.alice, h.alice2, h.bob, h.mallory = user(appID, "alice"), user(appID, "alice"), user(appID, "bob"), user(appID, "mallory")
	h.aliceForeign = user(foreignID, "alice")
	h.pat = "ghp_alicepersonal"
	g.AddToken(h.pat, "alice")

	clientID, secret, err := apps.AppOAuth(appID)
	require.NoError(t, err)
	api := g.APIURL()
	cc := githubapp.NewClientCreator(api+"/", g.URL+"/api/graphql", appID, pemKey)
	cfg := Config{
		Store: store, Org: org, AppID: appID, ClientID: clientID, ClientSecret: secret,
		APIURL: api, WebURL: g.URL, App: NewApp(cc), Now: h.clock.now,
		Logger: zerolog.New(h.log), Recheck: time.Hour,
	}
	for _, o := range opts {
		o(&cfg)
	}
	h.cfg = cfg
	h.console, err = New(cfg)
	require.NoError(t, err)
	h.srv = httptest.NewServer(h.console)
	t.Cleanup(h.srv.Close)
	return h
}

// replica is a second console like h's, on store (a replica behind the
// same load balancer when store shares h's database), as a harness whose
// requests go to it.
func (h *harness) replica(t *testing.T, store *SQL) *harness {
	t.Helper()
	cfg := h.cfg
	cfg.Store = store
	c, err := New(cfg)
	require.NoError(t, err)
	r := *h
	r.console, r.store = c, store
	r.srv = httptest.NewServer(c)
	t.Cleanup(r.srv.Close)
	return &r
}

// call sends a request with a bearer token (none when token is "") and
// returns the status and the body.
func (h *harness) call(t *testing.T, method, path, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, h.srv.URL+path, rd)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, out
}

// command decodes a command answer.
func command(t *testing.T, body []byte) *Command {
	t.Helper()
	var c Command
	require.NoError(t, json.Unmarshal(body, &c), string(body))
	return &c
}

// report is a session's report.json for acme/app.
func report(id, status string, extra string) string {
	return `{"id":"` + id + `","repo":"acme/app","status":"` + status + `","turns":3,"usage":{"total_tokens":1200},` +
		`"started_at":"2026-12-01T08:00:00Z","ended_at":"2026-12-01T08:02:00Z","pr_url":"https://github.example/acme/app/pull/4"` + extra + `}`
}

// lastAudit returns the newest audit entry.
func (h *harness) lastAudit(t *testing.T) *AuditEntry {
	t.Helper()
	log, err := h.store.AuditLog(t.Context(), 1)
	require.NoError(t, err)
	require.NotEmpty(t, log)
	return log[0]
}
