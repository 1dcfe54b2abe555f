package telemetry

import (
	"context"
	"sync/atomic"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// A failed export is dropped and counted, never handed to the SDK's
// process-wide error handler, which would print it on a person's terminal
// in the middle of a run: a dead collector is silent until the exit
// (Shutdown says how many exports failed).

type quietSpans struct {
	sdktrace.SpanExporter
	failed *atomic.Int64
}

func (q quietSpans) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := q.SpanExporter.ExportSpans(ctx, spans); err != nil {
		q.failed.Add(1)
	}
	return nil
}

type quietMetrics struct {
	sdkmetric.Exporter
	failed *atomic.Int64
}

func (q quietMetrics) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if err := q.Exporter.Export(ctx, rm); err != nil {
		q.failed.Add(1)
	}
	return nil
}
