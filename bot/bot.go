package bot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rcrowley/go-metrics"
	"github.com/rs/zerolog"

	"github.com/coreagent/core/console"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/setup"
	"github.com/coreagent/core/telemetry"
)

// Deps are what the bot takes from its caller besides its configuration.
type Deps struct {
	Logger zerolog.Logger
	// Getenv is the environment local runs are set up from (package
	// setup: CORE_HOME, CORE_SESSION_*, OPENAI_API_KEY, PATH...).
	Getenv func(string) string
	// SessionOptions, when set, replaces setup for local runs.
	SessionOptions func(ctx context.Context) (session.Options, error)
	// Handled, when set, is called after each webhook delivery was handled.
	Handled func()
	// Self is core's executable (setup.Env.Self).
	Self string
	// Telemetry, when set, traces webhooks, dispatches and local runs
	// (the process's OpenTelemetry exporter, telemetry.New).
	Telemetry *telemetry.Telemetry
}

// Bot is the GitHub App: its store, the runner that carries runs out, and
// the webhook server. New builds it, Start serves, Shutdown stops.
type Bot struct {
	cfg     *Config
	logger  zerolog.Logger
	store   Store
	base    *Base
	local   *LocalRunner // nil in actions mode
	handler http.Handler
	mux     *http.ServeMux   // MountConsole adds the console's paths
	console *console.Console // nil until MountConsole

	mu      sync.Mutex
	hs      *http.Server
	addr    string
	errc    chan error
	stopGC  chan struct{}
	gcDone  chan struct{}
	stopped bool
}

// deliveryRetention is how long delivery ids are kept to refuse
// redeliveries; GitHub redelivers for days at most.
const deliveryRetention = 7 * 24 * time.Hour

// New builds the bot from its configuration: the SQLite store under the
// data directory, the runner of its dispatch mode, and the handlers.
func New(ctx context.Context, cfg *Config, deps Deps) (*Bot, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	registry := metrics.NewRegistry()
	base := &Base{
		ClientCreator: githubapp.NewClientCreator(cfg.v3URL(), cfg.v4URL(), cfg.AppID, cfg.PrivateKey,
			githubapp.WithClientUserAgent("core-bot"),
			githubapp.WithClientTimeout(APITimeout),
			githubapp.WithClientMiddleware(githubapp.ClientMetrics(registry))),
		Store:     store,
		Config:    cfg,
		Metrics:   NewMetrics(registry),
		Now:       time.Now,
		NewRunID:  newRunID,
		Telemetry: deps.Telemetry,
	}
	b := &Bot{cfg: cfg, logger: deps.Logger, store: store, base: base}
	if cfg.Dispatch == DispatchLocal {
		options := deps.SessionOptions
		if options == nil {
			options = setupOptions(cfg, deps)
		}
		b.local = NewLocalRunner(base, options)
		base.Runner = b.local
	} else {
		base.Runner = &ActionsRunner{Base: base}
	}
	b.handler, b.mux = newHandler(base, registry, deps.Logger, deps.Handled)
	return b, nil
}

// setupOptions sets local runs up through setup, the one way in: state
// under <data-dir>/core unless CORE_HOME says otherwise; a run that lands
// waits idle for its starter's /core messages (IdleTriggered, then
// IdleAttended) unless CORE_SESSION_IDLE_TIMEOUT says otherwise.
func setupOptions(cfg *Config, deps Deps) func(ctx context.Context) (session.Options, error) {
	getenv, self := deps.Getenv, deps.Self
	var observer live.Observer
	if deps.Telemetry != nil {
		observer = deps.Telemetry
	}
	return func(ctx context.Context) (session.Options, error) {
		if getenv == nil {
			return session.Options{}, errors.New("the bot has no environment to set local runs up from")
		}
		ready, err := setup.Options(ctx, setup.Env{Getenv: getenv, Home: filepath.Join(cfg.DataDir, "core"), Self: self, Observer: observer,
			Defaults: map[string]string{setup.IdleTimeout: session.IdleTriggered.String()}}, nil)
		if err != nil {
			return session.Options{}, setup.Word(err, setup.EnvWording)
		}
		if ready.Options.Live.IdleTimeout == session.IdleTriggered {
			// A trigger started it; its starter writing to it moves it
			// onto the attended timeout.
			ready.Options.Live.IdleAfterMessage = session.IdleAttended
		}
		return ready.Options, nil
	}
}

// ServeHTTP serves the bot's endpoints (Start serves them on a listener).
func (b *Bot) ServeHTTP(w http.ResponseWriter, r *http.Request) { b.handler.ServeHTTP(w, r) }

// Base is what the handlers share.
func (b *Bot) Base() *Base { return b.base }

// Store is the bot's store.
func (b *Bot) Store() Store { return b.store }

// Recover settles what a previous process left in flight: in local mode
// every queued or running run (their sessions died with it), in actions
// mode every queued one (never dispatched). Each fails, its status
// comment says so, and its issue is free for a new /core fix.
func (b *Bot) Recover(ctx context.Context) ([]*Run, error) {
	states := []string{StateQueued}
	if b.local != nil {
		states = append(states, StateRunning)
	}
	const reason = "the bot restarted while the run was in flight"
	runs, err := b.store.Abandon(ctx, states, reason)
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		b.base.Metrics.ended(StateFailed)
		text := "failed: the bot restarted while this run was in flight, so it was stopped. Ask again with `/core fix`."
		if err := b.base.editStatus(ctx, run, text); err != nil {
			b.logger.Warn().Err(err).Str(logKeyRun, run.ID).Msg("Could not say that a run was abandoned")
		}
	}
	if len(runs) > 0 {
		b.logger.Info().Int("runs", len(runs)).Msg("Failed the runs a previous process left in flight")
	}
	return runs, nil
}

// Start recovers the runs a previous process left in flight, forgets old
// deliveries (now and every hour), listens on cfg.Listen and serves in the
// background. It returns once the bot listens.
func (b *Bot) Start(ctx context.Context) error {
	if _, err := b.Recover(ctx); err != nil {
		return err
	}
	b.prune(ctx)
	ln, err := net.Listen("tcp", b.cfg.Listen)
	if err != nil {
		return fmt.Errorf("CORE_BOT_LISTEN %s: %w", b.cfg.Listen, err)
	}
	hs := NewHTTPServer(b.handler)
	b.mu.Lock()
	b.hs, b.addr, b.errc = hs, ln.Addr().String(), make(chan error, 1)
	b.stopGC, b.gcDone = make(chan struct{}), make(chan struct{})
	b.mu.Unlock()
	go func() { b.errc <- hs.Serve(ln) }()
	go b.pruneEvery(context.WithoutCancel(ctx), time.Hour)
	b.logger.Info().Str("listen", b.addr).Str("dispatch", b.cfg.Dispatch).Msg("Serving webhooks")
	return nil
}

// pruneEvery forgets deliveries older than deliveryRetention every
// period, until Shutdown.
func (b *Bot) pruneEvery(ctx context.Context, period time.Duration) {
	defer close(b.gcDone)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			b.prune(ctx)
		case <-b.stopGC:
			return
		}
	}
}

func (b *Bot) prune(ctx context.Context) {
	n, err := b.store.Prune(ctx, b.base.Now().Add(-deliveryRetention))
	if err != nil {
		b.logger.Warn().Err(err).Msg("Could not forget old deliveries")
	} else if n > 0 {
		b.logger.Info().Int64("deliveries", n).Msg("Forgot old deliveries")
	}
}

// Addr is the address the bot listens on, once started.
func (b *Bot) Addr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addr
}

// Err delivers the server's failure, if it stops by itself.
func (b *Bot) Err() <-chan error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.errc
}

// Shutdown stops taking webhooks, stops the local runs (each status
// comment says the bot shut down), waits for them until ctx ends, and
// closes the store.
func (b *Bot) Shutdown(ctx context.Context) error {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil
	}
	b.stopped = true
	hs, stopGC, gcDone := b.hs, b.stopGC, b.gcDone
	b.mu.Unlock()
	var errs []error
	if hs != nil {
		if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		close(stopGC)
		<-gcDone
	}
	if b.console != nil {
		b.console.Close()
	}
	if b.local != nil {
		errs = append(errs, b.local.Shutdown(ctx))
	}
	errs = append(errs, b.store.Close())
	return errors.Join(errs...)
}

// openStore opens the bot's store: PostgreSQL when CORE_BOT_DATABASE_URL
// names one (several replicas share it), else SQLite in the data directory.
func openStore(ctx context.Context, cfg *Config) (Store, error) {
	if cfg.DatabaseURL != "" {
		return OpenPostgres(ctx, cfg.DatabaseURL)
	}
	return OpenSQLite(ctx, filepath.Join(cfg.DataDir, "bot.db"))
}
