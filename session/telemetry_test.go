package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/internal/testkit/otlp"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/telemetry"
)

// exporterTo is an OpenTelemetry exporter sending to base, as the
// standard variables would make it; nil when vars ask for nothing.
func exporterTo(tb testing.TB, vars map[string]string) *telemetry.Telemetry {
	tb.Helper()
	tel, err := telemetry.New(func(k string) string { return vars[k] })
	if err != nil {
		tb.Fatal(err)
	}
	return tel
}

// tracedRun runs a session of turns read_file turns and done, its events
// handed to tel.
func tracedRun(tb testing.TB, tel *telemetry.Telemetry, turns int) *Report {
	tb.Helper()
	repo := testkit.GitRepo(tb, map[string]string{"small.go": "package small\n"})
	var replies []llm.Reply
	for range turns {
		replies = append(replies, llm.ContentReply("tool: read_file\npath: small.go"))
	}
	srv := llm.NewModelServer(tb, append(replies, llm.ContentReply("tool: done\nsummary: read it"))...)
	opts := testOptions(tb, srv, repo)
	opts.Landing.DryRun = true
	opts.Goal.Prompt = "read small.go, secret-goal-text"
	if tel != nil {
		opts.Live.Observer = tel
	}
	rep, err := Run(tb.Context(), opts)
	if err != nil || rep.Status != state.Completed {
		tb.Fatalf("session: %v %+v", err, rep)
	}
	return rep
}

func TestRunTrace(t *testing.T) {
	t.Parallel()
	rcv := otlp.New(t)
	tel := exporterTo(t, map[string]string{telemetry.EnvEndpoint: rcv.URL, telemetry.EnvServiceName: "core-session-test"})
	rep := tracedRun(t, tel, 2)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	roots := rcv.Named(telemetry.SpanRun)
	if len(roots) != 1 {
		t.Fatalf("%d run spans, want 1: %d spans in all", len(roots), len(rcv.Spans()))
	}
	root := roots[0]
	want := telemetry.RunTrace(rep.ID)
	if root.TraceID != want.TraceID().String() || root.Attrs["core.session.id"] != rep.ID || root.Attrs["core.ending"] != "completed" {
		t.Errorf("run span: %+v", root)
	}
	if root.Attrs["core.turns"] != int64(3) {
		t.Errorf("core.turns = %v, want 3", root.Attrs["core.turns"])
	}
	turns := rcv.Named(telemetry.SpanTurn)
	if len(turns) != 3 {
		t.Errorf("%d turn spans, want 3", len(turns))
	}
	for _, s := range rcv.Spans() {
		if s.TraceID != root.TraceID {
			t.Errorf("span %s in another trace", s.Name)
		}
		if s.Name != telemetry.SpanRun && s.Parent == "" {
			t.Errorf("span %s has no parent", s.Name)
		}
		for k, v := range s.Attrs {
			if str, ok := v.(string); ok && strings.Contains(str, "secret-goal-text") {
				t.Errorf("span %s exports the goal in %s without the opt-in", s.Name, k)
			}
		}
	}
	var states []string
	for _, e := range root.Events {
		states = append(states, fmt.Sprint(e.Attrs["core.status"]))
	}
	if !strings.Contains(strings.Join(states, " "), "completed") {
		t.Errorf("state events on the run span: %v", states)
	}
}

func TestRunTelemetryOff(t *testing.T) {
	t.Parallel()
	rcv := otlp.New(t)
	// The receiver is where a collector would be, but no variable names it.
	tel := exporterTo(t, map[string]string{"CORE_SESSION_MODEL": "coder", "OTEL_RESOURCE_ATTRIBUTES": "x=" + rcv.URL})
	if tel != nil {
		t.Fatal("telemetry on without its variables")
	}
	tracedRun(t, tel, 1)
	if n := len(rcv.Requests()); n != 0 {
		t.Errorf("%d requests reached the receiver with telemetry off", n)
	}
}

// TestRunWithDeadCollector: a collector that refuses or never answers
// neither fails the run nor holds the process past ShutdownTimeout.
func TestRunWithDeadCollector(t *testing.T) {
	t.Parallel()
	for name, url := range map[string]string{"refusing": otlp.Refusing(t), "silent": otlp.Silent(t)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tel := exporterTo(t, map[string]string{telemetry.EnvEndpoint: url, telemetry.EnvTimeout: "60000"})
			tracedRun(t, tel, 2)
			done := make(chan error, 1)
			go func() { done <- tel.Shutdown(context.Background()) }()
			// Shutdown bounds itself; the wait here only keeps a broken
			// bound from hanging the suite.
			testkit.Receive(t, done, "the exporter's shutdown against a dead collector")
		})
	}
}

// BenchmarkRunTelemetry prints a 10-turn session's time with telemetry
// off, with a live collector, and with a collector that refuses or never
// answers, side by side, and how long each process's flush at exit took.
func BenchmarkRunTelemetry(b *testing.B) {
	rcv := otlp.New(b)
	for _, c := range []struct{ name, url string }{{"off", ""}, {"live", rcv.URL}, {"refusing", otlp.Refusing(b)}, {"silent", otlp.Silent(b)}} {
		b.Run(c.name, func(b *testing.B) {
			var shutdown time.Duration
			for b.Loop() {
				vars := map[string]string{}
				if c.url != "" {
					vars[telemetry.EnvEndpoint] = c.url
				}
				tel := exporterTo(b, vars)
				tracedRun(b, tel, 10)
				b.StopTimer()
				began := time.Now()
				_ = tel.Shutdown(context.Background())
				shutdown += time.Since(began)
				b.StartTimer()
			}
			b.ReportMetric(float64(shutdown.Milliseconds())/float64(b.N), "exit-flush-ms")
		})
	}
}
