package telemetry

import (
	"fmt"

	"go.opentelemetry.io/otel/metric"
)

// The metrics' names (docs/telemetry.md).
const (
	MetricRuns            = "core.runs"
	MetricTokens          = "gen_ai.client.token.usage"
	MetricRequestDuration = "gen_ai.client.operation.duration"
	MetricCost            = "core.cost"
	MetricChecks          = "core.contract.checks"
	MetricCommandDuration = "core.sandbox.command.duration"
	MetricWebhookDuration = "core.webhook.duration"
)

// instruments are the metrics core records.
type instruments struct {
	runs     metric.Int64Counter
	tokens   metric.Int64Histogram
	request  metric.Float64Histogram
	cost     metric.Float64Counter
	checks   metric.Int64Counter
	commands metric.Float64Histogram
	webhooks metric.Float64Histogram
}

// seconds are the buckets of the duration histograms: from 10ms to an
// hour.
var seconds = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var errs [7]error
	in.runs, errs[0] = m.Int64Counter(MetricRuns, metric.WithUnit("{run}"), metric.WithDescription("Runs ended, by ending, failure kind, kind and repository."))
	in.tokens, errs[1] = m.Int64Histogram(MetricTokens, metric.WithUnit("{token}"), metric.WithDescription("Tokens of each model request, by model, token type and repository."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304))
	in.request, errs[2] = m.Float64Histogram(MetricRequestDuration, metric.WithUnit("s"), metric.WithDescription("Duration of model requests, by model."),
		metric.WithExplicitBucketBoundaries(seconds...))
	in.cost, errs[3] = m.Float64Counter(MetricCost, metric.WithUnit("{USD}"), metric.WithDescription("What model requests cost, by model and repository (requests with a known price)."))
	in.checks, errs[4] = m.Int64Counter(MetricChecks, metric.WithUnit("{check}"), metric.WithDescription("Contract checks, by verdict and repository."))
	in.commands, errs[5] = m.Float64Histogram(MetricCommandDuration, metric.WithUnit("s"), metric.WithDescription("Duration of sandbox commands, by backend and outcome."),
		metric.WithExplicitBucketBoundaries(seconds...))
	in.webhooks, errs[6] = m.Float64Histogram(MetricWebhookDuration, metric.WithUnit("s"), metric.WithDescription("Time the bot took to handle a webhook delivery, by event and outcome."),
		metric.WithExplicitBucketBoundaries(seconds...))
	for _, err := range errs {
		if err != nil {
			return instruments{}, fmt.Errorf("OpenTelemetry metrics: %w", err)
		}
	}
	return in, nil
}
