// Package telemetry exports a run's events as OpenTelemetry traces and
// metrics over OTLP/HTTP, off unless the standard variables ask for it
// (docs/telemetry.md). It is a listener on the run's event log
// (live.EventLog.Listen): it never slows or fails a run, and a dead
// collector costs at most ShutdownTimeout when the process ends.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/coreagent/core/internal/buildinfo"
)

// Scope is the instrumentation scope of everything core exports.
const Scope = "github.com/coreagent/core"

// queueSize bounds the spans waiting for export: past it, spans are
// dropped, never waited for.
const queueSize = 4096

// Telemetry is the process's exporter: made once per core process (New),
// shut down at its exit (Shutdown). A nil *Telemetry exports nothing, and
// its methods do nothing.
type Telemetry struct {
	tp      *sdktrace.TracerProvider
	mp      *sdkmetric.MeterProvider
	tracer  trace.Tracer
	inst    instruments
	content bool
	// failed counts the exports that failed (quiet.go).
	failed *atomic.Int64
}

// New makes the process's exporter from the standard variables: nil, with
// nothing made and no goroutine started, when they do not ask for one.
func New(getenv func(string) string) (*Telemetry, error) {
	cfg, err := ConfigFrom(getenv)
	if err != nil || !cfg.On() {
		return nil, err
	}
	return FromConfig(cfg)
}

// FromConfig makes the exporter cfg describes (New reads cfg from the
// environment).
func FromConfig(cfg Config) (*Telemetry, error) {
	if !cfg.On() {
		return nil, nil
	}
	attrs := make([]attribute.KeyValue, 0, len(cfg.Resource)+2)
	for _, k := range slices.Sorted(maps.Keys(cfg.Resource)) {
		attrs = append(attrs, attribute.String(k, cfg.Resource[k]))
	}
	res := resource.NewSchemaless(append(attrs, attribute.String("service.name", cfg.Service),
		attribute.String("service.version", buildinfo.Version()))...)
	t := &Telemetry{content: cfg.Content, tracer: tracenoop.NewTracerProvider().Tracer(Scope), failed: new(atomic.Int64)}
	// No retries: an export that fails is dropped, and the next batch
	// tries again; a collector that does not answer costs Timeout.
	if cfg.TracesURL != "" {
		opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(cfg.TracesURL),
			otlptracehttp.WithHeaders(cfg.TracesHeaders), otlptracehttp.WithTimeout(cfg.Timeout),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false})}
		if cfg.TracesTLS != nil {
			opts = append(opts, otlptracehttp.WithTLSClientConfig(cfg.TracesTLS))
		}
		exp, err := otlptracehttp.New(context.Background(), opts...)
		if err != nil {
			return nil, fmt.Errorf("OpenTelemetry traces exporter: %w", err)
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithIDGenerator(ids{}),
			sdktrace.WithBatcher(quietSpans{SpanExporter: exp, failed: t.failed}, sdktrace.WithMaxQueueSize(queueSize), sdktrace.WithBatchTimeout(2*time.Second),
				sdktrace.WithExportTimeout(cfg.Timeout)))
		t.tracer = t.tp.Tracer(Scope, trace.WithInstrumentationVersion(buildinfo.Version()))
	}
	var meter metric.Meter = metricnoop.NewMeterProvider().Meter(Scope)
	if cfg.MetricsURL != "" {
		opts := []otlpmetrichttp.Option{otlpmetrichttp.WithEndpointURL(cfg.MetricsURL),
			otlpmetrichttp.WithHeaders(cfg.MetricsHeaders), otlpmetrichttp.WithTimeout(cfg.Timeout),
			otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false})}
		if cfg.MetricsTLS != nil {
			opts = append(opts, otlpmetrichttp.WithTLSClientConfig(cfg.MetricsTLS))
		}
		exp, err := otlpmetrichttp.New(context.Background(), opts...)
		if err != nil {
			t.shutdownTraces()
			return nil, fmt.Errorf("OpenTelemetry metrics exporter: %w", err)
		}
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(quietMetrics{Exporter: exp, failed: t.failed}, sdkmetric.WithInterval(cfg.MetricInterval), sdkmetric.WithTimeout(cfg.Timeout))))
		meter = t.mp.Meter(Scope, metric.WithInstrumentationVersion(buildinfo.Version()))
	}
	inst, err := newInstruments(meter)
	if err != nil {
		t.shutdownTraces()
		return nil, err
	}
	t.inst = inst
	return t, nil
}

func (t *Telemetry) shutdownTraces() {
	if t.tp != nil {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		_ = t.tp.Shutdown(ctx)
	}
}

// Shutdown exports what is left and stops: at most ShutdownTimeout,
// whatever the collector does (and sooner when ctx ends).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, ShutdownTimeout)
	defer cancel()
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("OpenTelemetry: flush at exit: %w", err)
	}
	if n := t.failed.Load(); n > 0 {
		return fmt.Errorf("OpenTelemetry: %d exports failed (is the collector at the endpoint up?)", n)
	}
	return nil
}

// ForceFlush exports what waits, within ctx (tests and the benchmark).
func (t *Telemetry) ForceFlush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.ForceFlush(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.ForceFlush(ctx))
	}
	return errors.Join(errs...)
}
