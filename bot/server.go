package bot

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rcrowley/go-metrics"
	"github.com/rs/zerolog"
)

// WebhookPath is where GitHub delivers the App's webhooks.
const WebhookPath = "/api/github/hook"

// MaxPayload is the largest webhook body the bot reads: GitHub caps
// payloads at 25 MiB and does not deliver larger ones, so anything bigger
// is not GitHub's and is refused (413) before it is read.
const MaxPayload = 25 << 20

// The HTTP server's limits. GitHub gives up on a delivery after 10 seconds,
// so reading one (headers and a body of up to MaxPayload) and answering it
// must fit in less; a slow client is cut off rather than holding a
// connection. APITimeout bounds every call the bot makes to the GitHub API.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 9 * time.Second
	WriteTimeout      = 9 * time.Second
	IdleTimeout       = 60 * time.Second
	APITimeout        = 30 * time.Second
)

// NewHTTPServer returns an http.Server for h with the bot's timeouts.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
	}
}

// newHandler builds the bot's HTTP endpoints: the webhook (each event to
// its handler, through go-githubapp's queue), /healthz and /metrics.
// handled, when set, is called after each delivery was handled.
func newHandler(base *Base, registry metrics.Registry, logger zerolog.Logger, handled func()) (http.Handler, *http.ServeMux) {
	cfg := base.Config
	handlers := []githubapp.EventHandler{
		&IssueComment{Base: base}, &Issues{Base: base}, &PullRequest{Base: base}, &WorkflowRun{Base: base},
	}
	for i, h := range handlers {
		handlers[i] = traced{EventHandler: h, tel: base.Telemetry}
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
	mux.Handle("POST "+WebhookPath, countDeliveries(base.Metrics, boundBody(MaxPayload, dispatcher)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if _, err := base.Store.CountByState(r.Context()); err != nil {
			http.Error(w, "store: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /metrics", base.Metrics)
	return withLogger(logger, mux), mux
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

// boundBody reads at most limit bytes of a request's body before next sees
// it: a body that declares or turns out to be longer is answered 413 and
// never read further, so an unsigned flood costs the bot at most limit
// bytes of memory before the signature check refuses it.
func boundBody(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			tooLarge(w, r.ContentLength, limit)
			return
		}
		size := limit + 1
		if r.ContentLength >= 0 {
			size = r.ContentLength
		}
		buf := bytes.NewBuffer(make([]byte, 0, min(size, 64<<10)))
		_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			tooLarge(w, -1, limit)
			return
		case err != nil:
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(buf)
		r.ContentLength = int64(buf.Len())
		next.ServeHTTP(w, r)
	})
}

func tooLarge(w http.ResponseWriter, declared, limit int64) {
	msg := "the request body is over GitHub's webhook payload limit of " + strconv.FormatInt(limit, 10) + " bytes"
	if declared > 0 {
		msg += " (it declares " + strconv.FormatInt(declared, 10) + ")"
	}
	w.Header().Set("Connection", "close")
	http.Error(w, msg, http.StatusRequestEntityTooLarge)
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
