// Package console is core's console, served by core bot: it receives the
// report of every session (POST /api/session-runs), lists them on the Runs
// page with the bot's own runs, queues instructions for a person's own
// machines (POST /api/session-commands) that `core session serve` claims
// with a lease, keeps an append-only audit log of every enqueue, claim,
// result and refusal, and arms the forger per repository. People sign in
// with the App's OAuth web flow; programs send a GitHub token as bearer,
// which GitHub verifies (see verify.go) and nothing stores.
package console

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Log keys.
const (
	logKeyActor   = "actor"
	logKeyAction  = "action"
	logKeyReason  = "reason"
	logKeyStatus  = "status"
	logKeyCommand = "command"
	logKeyPage    = "page"
	logKeyCount   = "count"
	logKeyAfter   = "after"
)

// Config is what the console needs; New fills the defaults.
type Config struct {
	Store Store
	// Org is the console's organisation (or user account): reports and
	// instructions are for its repositories, and callers must reach the
	// App's installation on it.
	Org string
	// AppID, ClientID and ClientSecret are the GitHub App's.
	AppID                  int64
	ClientID, ClientSecret string
	// APIURL is GitHub's REST API (default https://api.github.com; on
	// GitHub Enterprise Server https://HOST/api/v3); WebURL its web host
	// (default https://github.com), where people sign in.
	APIURL, WebURL string
	// PublicURL is the console's own address as browsers reach it (e.g.
	// https://core.example.com); GitHub sends signed-in browsers back to
	// PublicURL/oauth/callback. Empty: the request's host, over https when
	// the request came over TLS or X-Forwarded-Proto says https.
	PublicURL string
	// App acts as the GitHub App itself: its slug, the forger's variables.
	App App
	// BotRuns, when set, lists the runs the bot dispatched or ran itself;
	// they show on the Runs page without a report.
	BotRuns    BotRuns
	HTTPClient *http.Client
	Now        func() time.Time
	Logger     zerolog.Logger
	// Lease is how long a claim holds a command (default 1h); TokenTTL how
	// long a verified token is trusted before GitHub is asked again
	// (default 5m); MaxWait the longest long-poll (default 60s); Recheck
	// how often a long-poll looks for commands another replica queued
	// (default 2s; enqueues on this replica wake it at once); SessionTTL
	// how long a browser stays signed in (default 12h); LiveExpiry how
	// long a live run may be silent before it is shown lost (default 5m;
	// a live run polls at least every half minute).
	Lease, TokenTTL, MaxWait, Recheck, SessionTTL, LiveExpiry time.Duration
}

// App is what the console does as the GitHub App.
type App interface {
	// Slug is the App's slug: its installation tokens act as slug[bot].
	Slug(ctx context.Context) (string, error)
	// Repositories lists the repositories (owner/name) the App's
	// installation on org covers.
	Repositories(ctx context.Context, org string) ([]string, error)
	// Permission is login's permission on repo (admin, write, read, none…).
	Permission(ctx context.Context, repo, login string) (string, error)
	// Variable reads and SetVariable writes an Actions variable of repo.
	Variable(ctx context.Context, repo, name string) (value string, ok bool, err error)
	SetVariable(ctx context.Context, repo, name, value string) error
}

// BotRuns is the bot's own record of its runs, read-only.
type BotRuns interface {
	RecentRuns(ctx context.Context, limit int) ([]*Run, error)
}

// DaySpend is what the bot's runs on each repository cost today (UTC), and
// the daily budget per repository (0: none). The Runs page shows it when
// BotRuns can say (an optional ability, found by type assertion).
type DaySpend struct {
	Budget float64
	ByRepo map[string]float64
}

type daySpender interface {
	SpentToday(ctx context.Context) (DaySpend, error)
}

// Console serves the API and the pages.
type Console struct {
	cfg       Config
	verify    *verifier
	wake      *notifier
	mux       *http.ServeMux
	templates *template.Template
	closing   chan struct{} // closed by Close: long polls answer 204
	closeOnce sync.Once
	// swept is when this console last looked for lost runs (sweepLost).
	sweepMu sync.Mutex
	swept   time.Time
}

// New builds the console's handler.
func New(cfg Config) (*Console, error) {
	var errs []string
	if cfg.Store == nil {
		errs = append(errs, "a store is required")
	}
	if cfg.Org == "" {
		errs = append(errs, "the console's organisation (CORE_BOT_CONSOLE_ORG) is required")
	}
	if cfg.AppID <= 0 || cfg.ClientID == "" || cfg.ClientSecret == "" {
		errs = append(errs, "the App's id, OAuth client id and client secret (CORE_BOT_CLIENT_ID, CORE_BOT_CLIENT_SECRET) are required")
	}
	if cfg.App == nil {
		errs = append(errs, "the App client is required")
	}
	if len(errs) > 0 {
		return nil, errors.New("console: " + strings.Join(errs, "; "))
	}
	cfg.APIURL = strings.TrimRight(cmpOr(cfg.APIURL, "https://api.github.com"), "/")
	cfg.WebURL = strings.TrimRight(cmpOr(cfg.WebURL, "https://github.com"), "/")
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if u, err := url.Parse(cfg.PublicURL); cfg.PublicURL != "" && (err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("console: the public URL must be an http(s) URL such as https://core.example.com, got %q", cfg.PublicURL)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Lease = durOr(cfg.Lease, time.Hour)
	cfg.TokenTTL = durOr(cfg.TokenTTL, 5*time.Minute)
	cfg.MaxWait = durOr(cfg.MaxWait, 60*time.Second)
	cfg.Recheck = durOr(cfg.Recheck, 2*time.Second)
	cfg.SessionTTL = durOr(cfg.SessionTTL, 12*time.Hour)
	cfg.LiveExpiry = durOr(cfg.LiveExpiry, 5*time.Minute)
	c := &Console{
		cfg: cfg,
		verify: &verifier{
			api: cfg.APIURL, graphql: graphqlURL(cfg.APIURL), org: cfg.Org, appID: cfg.AppID,
			slug: cfg.App.Slug, hc: cfg.HTTPClient, now: cfg.Now, ttl: cfg.TokenTTL,
		},
		wake:      newNotifier(),
		mux:       http.NewServeMux(),
		templates: pages(),
		closing:   make(chan struct{}),
	}
	c.routes()
	return c, nil
}

// Close ends the long polls waiting now and from now on: they answer 204
// at once, so a server shutting down is not held up by them. Register it
// with http.Server.RegisterOnShutdown.
func (c *Console) Close() {
	c.closeOnce.Do(func() { close(c.closing) })
}

// Paths are the paths the console serves, for the bot's mux.
func Paths() []string {
	return []string{"/api/session-runs", "/api/session-runs/", "/api/session-commands", "/api/session-commands/",
		"/api/session-queue", "/api/audit-anchors", "/api/config", "/login", "/logout", "/oauth/callback",
		"/runs", "/runs/", "/overview", "/queue", "/audit", "/forger", "/{$}"}
}

func (c *Console) routes() {
	m := c.mux
	m.HandleFunc("GET /api/config", c.apiConfig)
	m.HandleFunc("POST /api/session-runs", c.postRun)
	m.HandleFunc("GET /api/session-runs", c.listRuns)
	m.HandleFunc("GET /api/session-runs/{id}", c.getRun)
	m.HandleFunc("POST /api/session-runs/{id}/events", c.postEvents)
	m.HandleFunc("GET /api/session-runs/{id}/events", c.getEvents)
	m.HandleFunc("GET /api/session-runs/{id}/controls", c.takeControls)
	m.HandleFunc("POST /api/session-runs/{id}/controls/{cid}", c.ackControl)
	m.HandleFunc("POST /api/session-commands", c.postCommand)
	m.HandleFunc("GET /api/session-commands", c.claimCommand)
	m.HandleFunc("POST /api/session-commands/{id}/result", c.postResult)
	m.HandleFunc("POST /api/session-commands/{id}/lease", c.renewLease)
	m.HandleFunc("GET /api/audit-anchors", c.getAnchors)
	m.HandleFunc("GET /api/session-queue", c.getQueue)
	m.HandleFunc("POST /api/session-queue", c.postQueue)
	m.HandleFunc("GET /login", c.login)
	m.HandleFunc("GET /oauth/callback", c.callback)
	m.HandleFunc("POST /logout", c.logout)
	m.HandleFunc("GET /{$}", c.home)
	m.HandleFunc("GET /runs", c.runsPage)
	m.HandleFunc("GET /runs/{id}", c.runPage)
	m.HandleFunc("GET /runs/{id}/report.json", c.runReport)
	m.HandleFunc("POST /runs/{id}/control", c.postControl)
	m.HandleFunc("GET /overview", c.overviewPage)
	m.HandleFunc("POST /runs/{id}/topup", c.postTopUp)
	m.HandleFunc("GET /queue", c.queuePage)
	m.HandleFunc("GET /audit", c.auditPage)
	m.HandleFunc("GET /forger", c.forgerPage)
	m.HandleFunc("POST /forger", c.postForger)
}

// ServeHTTP serves the console.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "same-origin")
	c.mux.ServeHTTP(w, r)
}

// audit appends an entry; a failure to audit is logged, and the caller
// answers 500 when the entry was the point (a refusal still refuses).
func (c *Console) audit(ctx context.Context, actor, action, target, reason string) error {
	err := c.cfg.Store.Audit(ctx, &AuditEntry{At: c.cfg.Now().UTC(), Actor: actor, Action: action, Target: target, Reason: reason})
	if err != nil {
		c.cfg.Logger.Error().Err(err).Str(logKeyActor, actor).Str(logKeyAction, action).Msg("Writing the audit log failed")
	}
	return err
}

func graphqlURL(api string) string {
	if strings.HasSuffix(api, "/api/v3") {
		return strings.TrimSuffix(api, "/v3") + "/graphql"
	}
	return api + "/graphql"
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func durOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func validRepo(repo string) error {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.ContainsAny(name, "/ ") || strings.ContainsAny(owner, " ") {
		return fmt.Errorf("repo must be owner/name, got %q", repo)
	}
	return nil
}
