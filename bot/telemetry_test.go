package bot

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/otlp"
	"github.com/coreagent/core/telemetry"
)

// TestTelemetry: a /core fix delivery is a webhook span, and its dispatch
// to Actions a span of its own linked to the run's trace, the one the
// Action's run takes from its run_id input (telemetry.RunTrace).
func TestTelemetry(t *testing.T) {
	t.Parallel()
	rcv := otlp.New(t)
	tel, err := telemetry.New(func(k string) string {
		return map[string]string{telemetry.EnvEndpoint: rcv.URL, telemetry.EnvServiceName: "core-bot-test"}[k]
	})
	require.NoError(t, err)
	f := newFixture(t, nil, nil)
	f.stop()
	f.tel = tel
	f.start(t)
	_, run := f.dispatched(t)
	require.NoError(t, tel.Shutdown(context.Background()))

	hooks := rcv.Named("webhook issue_comment")
	require.Len(t, hooks, 1, "webhook spans")
	require.Equal(t, "SPAN_KIND_SERVER", hooks[0].Kind)
	require.Equal(t, "issue_comment", hooks[0].Attrs["core.webhook.event"])
	dispatches := rcv.Named("dispatch actions")
	require.Len(t, dispatches, 1, "dispatch spans")
	d := dispatches[0]
	require.Equal(t, hooks[0].SpanID, d.Parent, "the dispatch is part of the delivery's handling")
	require.Equal(t, run.ID, d.Attrs["core.bot.run_id"])
	require.Equal(t, "octo/hello", d.Attrs["core.repository"])
	want := telemetry.RunTrace(run.ID)
	require.Equal(t, []otlp.Link{{TraceID: want.TraceID().String(), SpanID: want.SpanID().String()}}, d.Links, "the dispatch links to the run's root")

	var webhook bool
	for _, p := range rcv.Points() {
		if p.Metric == telemetry.MetricWebhookDuration && p.Attrs["core.webhook.event"] == "issue_comment" && p.Count >= 1 {
			webhook = true
		}
	}
	require.True(t, webhook, "core.webhook.duration recorded the delivery")
}
