package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rcrowley/go-metrics"
	"github.com/rs/zerolog"

	"github.com/coreagent/core/console"
)

// WebhookPath is where GitHub delivers the App's webhooks.
const WebhookPath = "/api/github/hook"

// Server is the bot: the webhook endpoint, /healthz and /metrics.
type Server struct {
	Base    *Base
	handler http.Handler
	mux     *http.ServeMux // MountConsole adds the console's paths
	logger  zerolog.Logger
	console *console.Console
}

// New builds the bot from its configuration, its store and how it runs
// sessions (nil runner: dispatch to GitHub Actions). newRunner, when set,
// builds the runner from the Base (the local runner needs it).
func New(cfg *Config, store Store, logger zerolog.Logger, newRunner func(*Base) Runner) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	registry := metrics.NewRegistry()
	cc := githubapp.NewClientCreator(cfg.v3URL(), cfg.v4URL(), cfg.AppID, cfg.PrivateKey,
		githubapp.WithClientUserAgent("core-bot"),
		githubapp.WithClientMiddleware(githubapp.ClientMetrics(registry)))
	base := &Base{
		ClientCreator: cc,
		Store:         store,
		Config:        cfg,
		Metrics:       NewMetrics(registry),
		Now:           time.Now,
		NewRunID:      newRunID,
	}
	if newRunner != nil {
		base.Runner = newRunner(base)
	} else {
		base.Runner = &ActionsRunner{Base: base}
	}
	handlers := []githubapp.EventHandler{
		&IssueComment{Base: base}, &Issues{Base: base}, &PullRequest{Base: base}, &WorkflowRun{Base: base},
	}
	dispatcher := githubapp.NewEventDispatcher(handlers, cfg.WebhookSecret,
		githubapp.WithScheduler(githubapp.QueueAsyncScheduler(cfg.Queue, cfg.Workers,
			githubapp.WithSchedulingMetrics(registry),
			githubapp.WithAsyncErrorCallback(func(ctx context.Context, d githubapp.Dispatch, err error) {
				zerolog.Ctx(ctx).Error().Err(err).Str("event", d.EventType).Msg("Handling a webhook failed")
			}),
			githubapp.WithContextDeriver(func(ctx context.Context) context.Context {
				return logger.With().Logger().WithContext(context.WithoutCancel(ctx))
			}))),
		githubapp.WithErrorCallback(githubapp.MetricsErrorCallback(registry)),
	)
	mux := http.NewServeMux()
	mux.Handle("POST "+WebhookPath, countDeliveries(base.Metrics, dispatcher))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if _, err := store.CountByState(r.Context()); err != nil {
			http.Error(w, "store: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /metrics", base.Metrics)
	return &Server{Base: base, handler: withLogger(logger, mux), mux: mux, logger: logger}, nil
}

// ServeHTTP serves the bot's endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func countDeliveries(m *Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.deliveries.Inc(1)
		next.ServeHTTP(w, r)
	})
}

func withLogger(logger zerolog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(logger.WithContext(r.Context())))
	})
}

// newRunID makes a run id: r-<time>-<random>.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "r" + time.Now().UTC().Format("20060102150405") + "-" + hex.EncodeToString(b[:])
}
