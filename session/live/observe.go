package live

import "context"

// RunInfo names a run for those who watch its events from outside.
type RunInfo struct {
	Session    string
	Repository string
	// Kind is the run's kind: "review" for a review, "session" otherwise.
	Kind string
	// Resumed is set when the run resumes a session that ran before.
	Resumed bool
}

// Observer watches runs' events from outside core's own files: the
// OpenTelemetry exporter (package telemetry) is one. Observe is called
// when a run's event log opens; listen is handed to EventLog.Listen (it
// must not block), end is called once when the log closes.
type Observer interface {
	Observe(ctx context.Context, run RunInfo) (listen func(Event), end func())
}
