package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Webhook starts the span of the bot's handling of one delivery; done ends
// it, with err's word as its status, and records its latency
// (core.webhook.duration). On a nil Telemetry it does nothing.
func (t *Telemetry) Webhook(ctx context.Context, event, delivery string) (context.Context, func(err error)) {
	if t == nil {
		return ctx, func(error) {}
	}
	began := time.Now()
	ctx, sp := t.tracer.Start(ctx, SpanWebhook+" "+event, trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String(AttrWebhookEvent, event), attribute.String(AttrDelivery, delivery)))
	return ctx, func(err error) {
		outcome := "ok"
		if err != nil {
			outcome = "error"
			sp.SetStatus(codes.Error, "the delivery's handling failed")
		}
		sp.End()
		t.inst.webhooks.Record(context.Background(), time.Since(began).Seconds(),
			metric.WithAttributes(attribute.String(AttrWebhookEvent, event), attribute.String(AttrOutcome, outcome)))
	}
}

// Dispatch starts the span of the bot handing a run on (mode "actions":
// a workflow dispatched; "local": a run in this process), linked to the
// run's trace, which the run's key (the bot's run id) names: RunTrace.
// The context it returns carries the key (WithRunKey) and the span, which
// a local run's root links back to. On a nil Telemetry it only adds the key.
func (t *Telemetry) Dispatch(ctx context.Context, runID, repo, mode string) (context.Context, func(err error)) {
	ctx = WithRunKey(ctx, runID)
	if t == nil {
		return ctx, func(error) {}
	}
	ctx, sp := t.tracer.Start(ctx, SpanDispatch+" "+mode, trace.WithLinks(trace.Link{SpanContext: RunTrace(runID)}),
		trace.WithAttributes(attribute.String(AttrBotRun, runID), attribute.String(AttrRepository, repo), attribute.String(AttrDispatchMode, mode)))
	return ctx, func(err error) {
		if err != nil {
			sp.SetStatus(codes.Error, "the run could not be handed on")
		}
		sp.End()
	}
}
