package bot

import (
	"encoding/json"
	"net/http"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rcrowley/go-metrics"
)

// Metrics counts what the bot does; /metrics serves them as JSON.
type Metrics struct {
	registry   metrics.Registry
	deliveries metrics.Counter
	started    metrics.Counter
	refused    metrics.Counter
	outcomes   map[string]metrics.Counter
}

// NewMetrics makes the bot's metrics in registry (go-githubapp adds the
// queue depth and the dropped events to the same registry).
func NewMetrics(registry metrics.Registry) *Metrics {
	m := &Metrics{
		registry:   registry,
		deliveries: metrics.NewRegisteredCounter("core.deliveries", registry),
		started:    metrics.NewRegisteredCounter("core.runs.started", registry),
		refused:    metrics.NewRegisteredCounter("core.requests.refused", registry),
		outcomes:   map[string]metrics.Counter{},
	}
	for _, s := range []string{StateDone, StateFailed, StateCancelled} {
		m.outcomes[s] = metrics.NewRegisteredCounter("core.runs."+s, registry)
	}
	return m
}

func (m *Metrics) ended(state string) {
	if c, ok := m.outcomes[state]; ok {
		c.Inc(1)
	}
}

// ServeHTTP writes every metric as JSON: counters as numbers, gauges as
// numbers, histograms as their count.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	out := map[string]any{}
	m.registry.Each(func(name string, v any) {
		switch v := v.(type) {
		case metrics.Counter:
			out[name] = v.Count()
		case metrics.Gauge: // FunctionalGauge too: the queue depth
			out[name] = v.Value()
		case metrics.Histogram:
			out[name] = v.Count()
		}
	})
	if _, ok := out[githubapp.MetricsKeyDroppedEvents]; !ok {
		out[githubapp.MetricsKeyDroppedEvents] = 0
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
