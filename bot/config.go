// Package bot is core as a GitHub App: a webhook server that turns
// /core fix comments and core:fix labels into runs, dispatches them to the
// repository's core workflow on GitHub Actions (or runs them here), and
// comments the draft pull request's link back.
package bot

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Dispatch modes.
const (
	DispatchActions = "actions" // a workflow_dispatch of the repository's core workflow
	DispatchLocal   = "local"   // the bot runs the session itself
)

// Config is the bot's configuration; every field has a CORE_BOT_ variable.
type Config struct {
	Listen        string // CORE_BOT_LISTEN
	AppID         int64  // CORE_BOT_APP_ID
	PrivateKey    []byte // CORE_BOT_PRIVATE_KEY (PEM) or CORE_BOT_PRIVATE_KEY_FILE
	WebhookSecret string // CORE_BOT_WEBHOOK_SECRET
	APIURL        string // CORE_BOT_API_URL
	DataDir       string // CORE_BOT_DATA_DIR
	// DatabaseURL is CORE_BOT_DATABASE_URL: a postgres:// URL puts the
	// bot's store (and the console's) on PostgreSQL, for several replicas;
	// empty keeps SQLite in the data directory.
	DatabaseURL string
	Dispatch    string // CORE_BOT_DISPATCH
	Workflow    string // CORE_BOT_WORKFLOW
	Workers     int    // CORE_BOT_WORKERS
	Queue       int    // CORE_BOT_QUEUE
	// PendingTimeout fails a local run that waited this long for a worker.
	PendingTimeout time.Duration
	// DailyBudgetUSD is CORE_BOT_DAILY_BUDGET_USD: what the runs on one
	// repository may cost in a day (UTC); a run asked for once it is
	// spent is refused. Zero is no budget.
	DailyBudgetUSD float64
}

// Validate checks the configuration and names the setting that is wrong.
func (c *Config) Validate() error {
	var errs []string
	if c.Listen == "" {
		c.Listen = ":8080"
	}
	if c.APIURL == "" {
		c.APIURL = "https://api.github.com"
	}
	if c.Dispatch == "" {
		c.Dispatch = DispatchActions
	}
	if c.Workflow == "" {
		c.Workflow = "core.yml"
	}
	if c.Workers == 0 {
		c.Workers = 2
	}
	if c.Queue == 0 {
		c.Queue = 100
	}
	if c.PendingTimeout == 0 {
		c.PendingTimeout = 180 * time.Second
	}
	if c.AppID <= 0 {
		errs = append(errs, "CORE_BOT_APP_ID (--app-id) must be the App's numeric id")
	}
	if len(c.PrivateKey) == 0 {
		errs = append(errs, "CORE_BOT_PRIVATE_KEY (PEM text) or CORE_BOT_PRIVATE_KEY_FILE (--private-key-file) is required")
	} else if !strings.Contains(string(c.PrivateKey), "PRIVATE KEY-----") {
		errs = append(errs, "CORE_BOT_PRIVATE_KEY is not a PEM private key (it should start with -----BEGIN RSA PRIVATE KEY-----)")
	}
	if c.WebhookSecret == "" {
		errs = append(errs, "CORE_BOT_WEBHOOK_SECRET (--webhook-secret) is required: deliveries are verified with it")
	}
	if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Sprintf("CORE_BOT_API_URL (--api-url) must be an http(s) URL, got %q", c.APIURL))
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		errs = append(errs, "CORE_BOT_DATABASE_URL (--database-url) must be a postgres:// URL; leave it empty for SQLite in the data directory")
	}
	if c.DataDir == "" {
		errs = append(errs, "CORE_BOT_DATA_DIR (--data-dir) is required: the bot keeps its state there")
	}
	if c.Dispatch != DispatchActions && c.Dispatch != DispatchLocal {
		errs = append(errs, fmt.Sprintf("CORE_BOT_DISPATCH (--dispatch) must be actions or local, got %q", c.Dispatch))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Sprintf("CORE_BOT_WORKERS (--workers) must be at least 1, got %d", c.Workers))
	}
	if c.DailyBudgetUSD < 0 {
		errs = append(errs, fmt.Sprintf("CORE_BOT_DAILY_BUDGET_USD (--daily-budget-usd) must be a positive amount of dollars, got %g", c.DailyBudgetUSD))
	}
	if c.Queue < 1 {
		errs = append(errs, fmt.Sprintf("CORE_BOT_QUEUE (--queue) must be at least 1, got %d", c.Queue))
	}
	if len(errs) > 0 {
		return errors.New("bad configuration:\n  " + strings.Join(errs, "\n  "))
	}
	return nil
}

// v3URL is the REST base URL for go-githubapp (with a trailing slash);
// v4URL the GraphQL one.
func (c *Config) v3URL() string { return strings.TrimRight(c.APIURL, "/") + "/" }

func (c *Config) v4URL() string {
	api := strings.TrimRight(c.APIURL, "/")
	if strings.HasSuffix(api, "/api/v3") {
		return strings.TrimSuffix(api, "/v3") + "/graphql"
	}
	return api + "/graphql"
}
