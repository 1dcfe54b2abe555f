package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/coreagent/core/bot"
	"github.com/coreagent/core/console"
)

// botFlags are the bot command's flags: the bot's configuration, the
// console's, and the settings parsed into them.
type botFlags struct {
	cfg            bot.Config
	appID          string
	privateKeyFile string
	workers, queue string
	dailyBudget    string
	consoleCfg     bot.ConsoleConfig
}

func newBotCmd(e *env) *cobra.Command {
	var f botFlags
	cmd := &cobra.Command{
		Use:   "bot",
		Short: "Serve the GitHub App: /core fix comments and core:fix labels become runs",
		Long: `bot is core's GitHub App server. It receives webhooks at /api/github/hook
(the X-Hub-Signature-256 signature is checked before anything is read),
turns /core fix comments and core:fix labels into runs, and comments the
draft pull request's link back. Runs are dispatched to the repository's core
workflow on GitHub Actions (--dispatch actions), or run by the bot itself
(--dispatch local). /healthz answers when the bot and its database are up;
/metrics counts deliveries, drops, the queue and runs by outcome.

Every flag can also be set by the CORE_BOT_ variable named in its help; the
flag wins. The App's id, key and webhook secret, when no setting gives them,
come from the registration 'core bot setup' wrote into the data directory.
Local runs are set up from the environment like every session
(CORE_HOME, else <data-dir>/core; CORE_SESSION_INFERENCE_URL, CORE_SESSION_VERIFY,
CORE_SESSION_MAX_TURNS, OPENAI_API_KEY, ...). On start, the runs a previous
process left in flight are failed and their status comments say so.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.parse(e); err != nil {
				return err
			}
			return e.serveBot(cmd.Context(), &f.cfg, f.consoleCfg)
		},
	}
	f.bind(cmd, e)
	cmd.AddCommand(newBotSetupCmd(e))
	return cmd
}

// parse turns the settings' text into the bot's configuration, and fills
// what they leave from the App's files.
func (f *botFlags) parse(e *env) error {
	cfg, consoleCfg := &f.cfg, &f.consoleCfg
	var err error
	if cfg.AppID, err = parseIntSetting("CORE_BOT_APP_ID", f.appID); err != nil {
		return err
	}
	w, err := parseIntSetting("CORE_BOT_WORKERS", f.workers)
	if err != nil {
		return err
	}
	q, err := parseIntSetting("CORE_BOT_QUEUE", f.queue)
	if err != nil {
		return err
	}
	cfg.Workers, cfg.Queue = int(w), int(q)
	if f.dailyBudget != "" {
		if cfg.DailyBudgetUSD, err = strconv.ParseFloat(strings.TrimPrefix(f.dailyBudget, "$"), 64); err != nil {
			return fmt.Errorf("CORE_BOT_DAILY_BUDGET_USD must be an amount of dollars such as 20, got %q", f.dailyBudget)
		}
	}
	if pem := e.getenv("CORE_BOT_PRIVATE_KEY"); pem != "" {
		cfg.PrivateKey = []byte(pem)
	}
	if f.privateKeyFile != "" {
		if cfg.PrivateKey, err = os.ReadFile(f.privateKeyFile); err != nil {
			return fmt.Errorf("CORE_BOT_PRIVATE_KEY_FILE: %w", err)
		}
	}
	if err := cfg.FillFromAppFiles(); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if consoleCfg.Org != "" && (consoleCfg.ClientID == "" || consoleCfg.ClientSecret == "") {
		// core bot setup wrote the App's OAuth credentials too.
		if a, ok, err := bot.ReadAppFiles(cfg.DataDir); err == nil && ok {
			consoleCfg.ClientID = cmp.Or(consoleCfg.ClientID, a.ClientID)
			consoleCfg.ClientSecret = cmp.Or(consoleCfg.ClientSecret, a.ClientSecret)
		}
	}
	return nil
}

// bind declares the flags, each with its CORE_BOT_ variable as default.
func (f *botFlags) bind(cmd *cobra.Command, e *env) {
	cfg, consoleCfg := &f.cfg, &f.consoleCfg
	fl := cmd.Flags()
	fl.StringVar(&cfg.Listen, "listen", e.getenv("CORE_BOT_LISTEN"), "address to listen on, CORE_BOT_LISTEN (default :8080)")
	fl.StringVar(&f.appID, "app-id", e.getenv("CORE_BOT_APP_ID"), "the GitHub App's id, CORE_BOT_APP_ID")
	fl.StringVar(&f.privateKeyFile, "private-key-file", e.getenv("CORE_BOT_PRIVATE_KEY_FILE"), "the App's private key (PEM file), CORE_BOT_PRIVATE_KEY_FILE; or the PEM text in CORE_BOT_PRIVATE_KEY")
	fl.StringVar(&cfg.WebhookSecret, "webhook-secret", e.getenv("CORE_BOT_WEBHOOK_SECRET"), "the App's webhook secret, CORE_BOT_WEBHOOK_SECRET")
	fl.StringVar(&cfg.APIURL, "api-url", e.getenv("CORE_BOT_API_URL"), "the GitHub API, CORE_BOT_API_URL (default https://api.github.com; GitHub Enterprise Server: https://HOST/api/v3)")
	fl.StringVar(&cfg.DataDir, "data-dir", e.getenv("CORE_BOT_DATA_DIR"), "where the bot keeps its database (and, in local mode, its sessions), CORE_BOT_DATA_DIR")
	fl.StringVar(&cfg.Dispatch, "dispatch", e.getenv("CORE_BOT_DISPATCH"), "actions (dispatch the repository's core workflow) or local (run sessions here), CORE_BOT_DISPATCH (default actions)")
	fl.StringVar(&cfg.Workflow, "workflow", e.getenv("CORE_BOT_WORKFLOW"), "the workflow file dispatched in actions mode, CORE_BOT_WORKFLOW (default core.yml)")
	fl.StringVar(&f.workers, "workers", e.getenv("CORE_BOT_WORKERS"), "webhook workers, and sessions at once in local mode, CORE_BOT_WORKERS (default 2)")
	fl.StringVar(&f.queue, "queue", e.getenv("CORE_BOT_QUEUE"), "webhook events waiting at most; a full queue answers 503, CORE_BOT_QUEUE (default 100)")
	fl.StringVar(&f.dailyBudget, "daily-budget-usd", e.getenv("CORE_BOT_DAILY_BUDGET_USD"), "what the runs on one repository may cost in a day (UTC), in dollars: a run asked for once it is spent is refused with a comment; local runs are capped at what is left (needs a price, CORE_SESSION_PRICE_PER_MTOK or the endpoint's), CORE_BOT_DAILY_BUDGET_USD (default none)")
	fl.StringVar(&consoleCfg.Org, "console-org", e.getenv("CORE_BOT_CONSOLE_ORG"), "serve the console for this organisation's runs and queue (off when empty), CORE_BOT_CONSOLE_ORG")
	fl.StringVar(&consoleCfg.ClientID, "client-id", e.getenv("CORE_BOT_CLIENT_ID"), "the App's OAuth client id, for the console's sign-in, CORE_BOT_CLIENT_ID (default: the registration core bot setup wrote); the secret is CORE_BOT_CLIENT_SECRET")
	consoleCfg.ClientSecret = e.getenv("CORE_BOT_CLIENT_SECRET")
	fl.StringVar(&consoleCfg.WebURL, "web-url", e.getenv("CORE_BOT_WEB_URL"), "GitHub's web host, where people sign in, CORE_BOT_WEB_URL (default https://github.com)")
	fl.StringVar(&consoleCfg.PublicURL, "public-url", e.getenv("CORE_BOT_PUBLIC_URL"), "the console's address as browsers reach it, for the sign-in's callback, CORE_BOT_PUBLIC_URL (default: the request's host)")
	fl.StringVar(&cfg.DatabaseURL, "database-url", e.getenv("CORE_BOT_DATABASE_URL"), "a PostgreSQL database (postgres://…) for the bot's state and the console, shared by replicas, CORE_BOT_DATABASE_URL (default: bot.db and console.db in the data directory)")
}

func parseIntSetting(name, v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s must be a number, got %q", name, v)
	}
	return n, nil
}

// serveBot runs the bot until ctx ends, then shuts down gracefully.
func (e *env) serveBot(ctx context.Context, cfg *bot.Config, consoleCfg bot.ConsoleConfig) error {
	logger := zerolog.New(e.rawStderr).With().Timestamp().Logger()
	b, err := bot.New(ctx, cfg, bot.Deps{Logger: logger, Getenv: e.getenv, Self: e.self, Telemetry: e.telemetry})
	if err != nil {
		return err
	}
	if consoleCfg.Org != "" {
		cstore, err := console.Open(ctx, cmp.Or(cfg.DatabaseURL, filepath.Join(cfg.DataDir, "console.db")))
		if err != nil {
			_ = b.Shutdown(context.WithoutCancel(ctx))
			return err
		}
		defer cstore.Close()
		if err := b.MountConsole(consoleCfg, cstore); err != nil {
			_ = b.Shutdown(context.WithoutCancel(ctx))
			return err
		}
		logger.Info().Str("org", consoleCfg.Org).Bool("postgres", cfg.DatabaseURL != "").Msg("Serving the console")
	}
	if err := b.Start(ctx); err != nil {
		_ = b.Shutdown(context.WithoutCancel(ctx))
		return err
	}
	var serveErr error
	select {
	case serveErr = <-b.Err():
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return errors.Join(serveErr, b.Shutdown(shutdown))
}
