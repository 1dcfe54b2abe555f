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
)

// WebhookPath is where GitHub delivers the App's webhooks.
const WebhookPath = "/api/github/hook"

// newHandler builds the bot's HTTP endpoints: the webhook (each event to
// its handler, through go-githubapp's queue), /healthz and /metrics.
// handled, when set, is called after each delivery was handled.
func newHandler(base *Base, registry metrics.Registry, logger zerolog.Logger, handled func()) http.Handler {
	cfg := base.Config
	handlers := []githubapp.EventHandler{
		&IssueComment{Base: base}, &Issues{Base: base}, &PullRequest{Base: base}, &WorkflowRun{Base: base},
	}
	if handled != nil {
		for i, h := range handlers {
			handlers[i] = notifying{EventHandler: h, done: handled}
		}
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
		if _, err := base.Store.CountByState(r.Context()); err != nil {
			http.Error(w, "store: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /metrics", base.Metrics)
	return withLogger(logger, mux)
}

// notifying tells, after each delivery, that it was handled: tests wait on
// it instead of on silence.
type notifying struct {
	githubapp.EventHandler
	done func()
}

func (n notifying) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	defer n.done()
	return n.EventHandler.Handle(ctx, eventType, deliveryID, payload)
}

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
