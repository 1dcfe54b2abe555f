package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/coreagent/core/bot"
	"github.com/coreagent/core/console"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/tools"
)

func newBotCmd(e *env) *cobra.Command {
	var (
		cfg            bot.Config
		consoleCfg     bot.ConsoleConfig
		databaseURL    string
		appID          string
		privateKeyFile string
		workers, queue string
	)
	cmd := &cobra.Command{
		Use:   "bot",
		Short: "Serve the GitHub App: /core fix comments and core:fix labels become runs",
		Long: `bot is core's GitHub App server. It receives webhooks at /api/github/hook
(the X-Hub-Signature-256 signature is checked before anything is read),
turns /core fix comments and core:fix labels into runs, and comments the
draft pull request's link back. Runs are dispatched to the repository's core
workflow on GitHub Actions (--dispatch actions), or run by the bot itself
(--dispatch local). /healthz answers when the bot and its database are up;
/metrics counts deliveries, drops, the queue and runs by outcome. With
--console-org it also serves the console: the Runs, Queue, Audit and Forger
pages and the /api/session-* API (README, "Console").

Every flag can also be set by the CORE_BOT_ variable named in its help; the
flag wins.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if cfg.AppID, err = parseIntSetting("CORE_BOT_APP_ID", appID); err != nil {
				return err
			}
			w, err := parseIntSetting("CORE_BOT_WORKERS", workers)
			if err != nil {
				return err
			}
			q, err := parseIntSetting("CORE_BOT_QUEUE", queue)
			if err != nil {
				return err
			}
			cfg.Workers, cfg.Queue = int(w), int(q)
			if pem := e.getenv("CORE_BOT_PRIVATE_KEY"); pem != "" {
				cfg.PrivateKey = []byte(pem)
			}
			if privateKeyFile != "" {
				if cfg.PrivateKey, err = os.ReadFile(privateKeyFile); err != nil {
					return fmt.Errorf("CORE_BOT_PRIVATE_KEY_FILE: %w", err)
				}
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			return e.serveBot(cmd.Context(), &cfg, consoleCfg, databaseURL)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cfg.Listen, "listen", e.getenv("CORE_BOT_LISTEN"), "address to listen on, CORE_BOT_LISTEN (default :8080)")
	fl.StringVar(&appID, "app-id", e.getenv("CORE_BOT_APP_ID"), "the GitHub App's id, CORE_BOT_APP_ID")
	fl.StringVar(&privateKeyFile, "private-key-file", e.getenv("CORE_BOT_PRIVATE_KEY_FILE"), "the App's private key (PEM file), CORE_BOT_PRIVATE_KEY_FILE; or the PEM text in CORE_BOT_PRIVATE_KEY")
	fl.StringVar(&cfg.WebhookSecret, "webhook-secret", e.getenv("CORE_BOT_WEBHOOK_SECRET"), "the App's webhook secret, CORE_BOT_WEBHOOK_SECRET")
	fl.StringVar(&cfg.APIURL, "api-url", e.getenv("CORE_BOT_API_URL"), "the GitHub API, CORE_BOT_API_URL (default https://api.github.com; GitHub Enterprise Server: https://HOST/api/v3)")
	fl.StringVar(&cfg.DataDir, "data-dir", e.getenv("CORE_BOT_DATA_DIR"), "where the bot keeps its database (and, in local mode, its sessions), CORE_BOT_DATA_DIR")
	fl.StringVar(&cfg.Dispatch, "dispatch", e.getenv("CORE_BOT_DISPATCH"), "actions (dispatch the repository's core workflow) or local (run sessions here), CORE_BOT_DISPATCH (default actions)")
	fl.StringVar(&cfg.Workflow, "workflow", e.getenv("CORE_BOT_WORKFLOW"), "the workflow file dispatched in actions mode, CORE_BOT_WORKFLOW (default core.yml)")
	fl.StringVar(&workers, "workers", e.getenv("CORE_BOT_WORKERS"), "webhook workers, and sessions at once in local mode, CORE_BOT_WORKERS (default 2)")
	fl.StringVar(&consoleCfg.Org, "console-org", e.getenv("CORE_BOT_CONSOLE_ORG"), "serve the console for this organisation's runs and queue (off when empty), CORE_BOT_CONSOLE_ORG")
	fl.StringVar(&consoleCfg.ClientID, "client-id", e.getenv("CORE_BOT_CLIENT_ID"), "the App's OAuth client id, for the console's sign-in, CORE_BOT_CLIENT_ID")
	consoleCfg.ClientSecret = e.getenv("CORE_BOT_CLIENT_SECRET")
	fl.StringVar(&consoleCfg.WebURL, "web-url", e.getenv("CORE_BOT_WEB_URL"), "GitHub's web host, where people sign in, CORE_BOT_WEB_URL (default https://github.com)")
	fl.StringVar(&consoleCfg.PublicURL, "public-url", e.getenv("CORE_BOT_PUBLIC_URL"), "the console's address as browsers reach it, for the sign-in's callback, CORE_BOT_PUBLIC_URL (default: the request's host)")
	fl.StringVar(&databaseURL, "database-url", e.getenv("CORE_BOT_DATABASE_URL"), "a PostgreSQL database (postgres://…) for the bot's state and the console, shared by replicas, CORE_BOT_DATABASE_URL (default: bot.db and console.db in the data directory)")
	fl.StringVar(&queue, "queue", e.getenv("CORE_BOT_QUEUE"), "webhook events waiting at most; a full queue answers 503, CORE_BOT_QUEUE (default 100)")
	return cmd
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
func (e *env) serveBot(ctx context.Context, cfg *bot.Config, consoleCfg bot.ConsoleConfig, databaseURL string) error {
	logger := zerolog.New(e.stderr).With().Timestamp().Logger()
	var store bot.Store
	var err error
	switch {
	case strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://"):
		store, err = bot.OpenPostgres(ctx, databaseURL)
	case databaseURL != "":
		return errors.New("CORE_BOT_DATABASE_URL (--database-url) must be a postgres:// URL; leave it empty for SQLite in the data directory")
	default:
		store, err = bot.OpenSQLite(ctx, filepath.Join(cfg.DataDir, "bot.db"))
	}
	if err != nil {
		return err
	}
	defer store.Close()
	var local *bot.LocalRunner
	var newRunner func(*bot.Base) bot.Runner
	if cfg.Dispatch == bot.DispatchLocal {
		newRunner = func(b *bot.Base) bot.Runner {
			local = &bot.LocalRunner{Base: b, Context: ctx, Options: func() (session.Options, error) { return e.botSessionOptions(ctx, cfg) }}
			return local
		}
	}
	srv, err := bot.New(cfg, store, logger, newRunner)
	if err != nil {
		return err
	}
	if consoleCfg.Org != "" {
		dsn := cmp.Or(databaseURL, filepath.Join(cfg.DataDir, "console.db"))
		cstore, err := console.Open(ctx, dsn)
		if err != nil {
			return err
		}
		defer cstore.Close()
		if err := srv.MountConsole(consoleCfg, cstore); err != nil {
			return err
		}
		logger.Info().Str("org", consoleCfg.Org).Bool("postgres", databaseURL != "").Msg("Serving the console")
	}
	expired, err := store.ExpireQueued(ctx, time.Now().Add(-cfg.PendingTimeout), "the bot restarted before the run could start")
	if err != nil {
		return err
	}
	if len(expired) > 0 {
		logger.Info().Int("runs", len(expired)).Msg("Expired runs queued before a restart")
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("CORE_BOT_LISTEN %s: %w", cfg.Listen, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 9 * time.Second, WriteTimeout: 9 * time.Second}
	hs.RegisterOnShutdown(srv.CloseConsole)
	logger.Info().Str("listen", ln.Addr().String()).Str("dispatch", cfg.Dispatch).Msg("Serving webhooks")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = hs.Shutdown(shutdown)
	if local != nil {
		local.Wait()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// botSessionOptions are the options a local run starts from: sessions
// under the data directory, the sandbox, the model; no terminal, so gated
// calls are declined.
func (e *env) botSessionOptions(ctx context.Context, cfg *bot.Config) (session.Options, error) {
	home := filepath.Join(cfg.DataDir, "core")
	store, err := session.OpenStore(home)
	if err != nil {
		return session.Options{}, err
	}
	sbCfg, err := sandbox.ConfigFromEnv(home, e.getenv)
	if err != nil {
		return session.Options{}, err
	}
	sb := sandbox.New(sbCfg)
	tier, err := sandbox.ParseTier(e.getenv("CORE_SESSION_VERIFY"))
	if err != nil {
		return session.Options{}, err
	}
	url, _, err := model.Endpoint(ctx, nil, e.getenv("CORE_SESSION_INFERENCE_URL"))
	if err != nil {
		return session.Options{}, err
	}
	key := e.getenv("CORE_SESSION_API_KEY")
	name := session.DefaultModel
	return session.Options{
		Model: name, InferenceURL: url, Verify: tier, Store: store, Sandbox: sb,
		Client:   model.New(model.Config{BaseURL: url, APIKey: key, Model: name}),
		Approver: tools.DenyApprover{}, Secrets: []string{key}, GitEnv: session.GitEnv(e.getenv),
	}, nil
}
