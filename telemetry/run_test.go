package telemetry_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit/otlp"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/state"
	"github.com/coreagent/core/telemetry"
)

// exporter is a Telemetry sending to rcv; metrics only when flushed.
func exporter(t *testing.T, rcv *otlp.Receiver, content bool) *telemetry.Telemetry {
	t.Helper()
	tel, err := telemetry.FromConfig(telemetry.Config{TracesURL: rcv.URL + "/v1/traces", MetricsURL: rcv.URL + "/v1/metrics",
		TracesHeaders: map[string]string{"Authorization": "Bearer otlp-secret"}, Service: "core-test",
		Timeout: 5 * time.Second, MetricInterval: time.Hour, Content: content, Resource: map[string]string{"deployment.environment": "ci"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	return tel
}

// clock is a log's clock that moves by hand.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func (c *clock) step(d time.Duration) { c.now = c.now.Add(d) }

func ptr[T any](v T) *T { return &v }

// script plays a run's events into an EventLog the telemetry listens
// to: two turns (a request, a run_shell with its command; a request, a
// declined write_file), a check with its command, landing, completed.
func script(t *testing.T, tel *telemetry.Telemetry, info live.RunInfo, ctx context.Context) {
	t.Helper()
	c := &clock{now: time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)}
	log, err := live.OpenEvents(filepath.Join(t.TempDir(), live.EventsFile), scrub.New("hunter2-secret"), c.Now)
	if err != nil {
		t.Fatal(err)
	}
	listen, end := tel.Observe(ctx, info)
	log.Listen(listen)
	ms := func(n int64) live.Step { return live.Step{DurationMS: n} }
	add := func(d time.Duration, e live.Event) { c.step(d); log.Add(e) }
	add(0, live.Event{Kind: live.EventState, Status: state.Starting, Progress: live.Progress{Goal: "fix the parser with hunter2-secret"}})
	add(time.Second, live.Event{Kind: live.EventState, Status: state.Active})
	add(2*time.Second, live.Event{Kind: live.EventRequest, Turn: 1, Step: ms(2000), Request: live.Request{Model: "qwen3", InputTokens: 1200, OutputTokens: 80, Retries: 1, RequestCostUSD: ptr(0.002)}})
	cmd := live.Step{DurationMS: 500, Exit: ptr(1), Backend: "bwrap"}
	add(600*time.Millisecond, live.Event{Kind: live.EventCommand, Turn: 1, Target: "go test ./parser/...", Step: cmd})
	add(10*time.Millisecond, live.Event{Kind: live.EventTool, Turn: 1, Tool: "run_shell", Target: "go test ./parser/...", Step: ms(620)})
	add(0, live.Event{Kind: live.EventTurn, Turn: 1, Tool: "run_shell", Target: "go test ./parser/..."})
	add(time.Second, live.Event{Kind: live.EventRequest, Turn: 2, Step: ms(1000), Request: live.Request{Model: "qwen3", InputTokens: 1500, OutputTokens: 40, RequestCostUSD: ptr(0.003)}})
	add(5*time.Millisecond, live.Event{Kind: live.EventTool, Turn: 2, Tool: "write_file", Target: "parser/parse.go", Text: "declined: the human operator did not approve", Step: ms(5)})
	add(0, live.Event{Kind: live.EventTurn, Turn: 2, Tool: "write_file", Target: "parser/parse.go", Progress: live.Progress{Tokens: 2820, CostUSD: ptr(0.005)}})
	add(3*time.Second, live.Event{Kind: live.EventCommand, Target: "go test ./...", Step: live.Step{DurationMS: 2000, Exit: ptr(0), Backend: "bwrap"}})
	add(time.Second, live.Event{Kind: live.EventCheck, Step: live.Step{Check: "go test ./...", Verdict: "fixed", DurationMS: 3500}})
	add(time.Second, live.Event{Kind: live.EventLand, Target: "core-session/abc https://github.com/o/r/pull/7", Step: ms(900)})
	add(0, live.Event{Kind: live.EventMessage, From: "octocat", Text: "thanks hunter2-secret"})
	add(0, live.Event{Kind: live.EventState, Status: state.Completed})
	end()
	log.Close()
	if err := tel.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func one(t *testing.T, rcv *otlp.Receiver, name string) otlp.Span {
	t.Helper()
	got := rcv.Named(name)
	if len(got) != 1 {
		t.Fatalf("%d spans named %q, want 1; all: %v", len(got), name, names(rcv.Spans()))
	}
	return got[0]
}

func names(spans []otlp.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func TestRunTrace(t *testing.T) {
	rcv := otlp.New(t)
	tel := exporter(t, rcv, false)
	script(t, tel, live.RunInfo{Session: "20261205-abc", Repository: "o/r", Kind: "session"}, t.Context())

	root := one(t, rcv, telemetry.SpanRun)
	want := telemetry.RunTrace("20261205-abc")
	if root.Parent != "" || root.TraceID != want.TraceID().String() || root.SpanID != want.SpanID().String() {
		t.Errorf("root %s/%s parent %q, want the run's derived ids %s/%s and no parent", root.TraceID, root.SpanID, root.Parent, want.TraceID(), want.SpanID())
	}
	for k, v := range map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "20261205-abc", "core.repository": "o/r",
		"core.ending": "completed", "core.turns": int64(2), "gen_ai.usage.input_tokens": int64(2700), "gen_ai.usage.output_tokens": int64(120),
		"core.tokens": int64(2820), "core.cost_usd": 0.005} {
		if root.Attrs[k] != v {
			t.Errorf("root %s = %v (%T), want %v", k, root.Attrs[k], root.Attrs[k], v)
		}
	}
	if root.Resource["service.name"] != "core-test" || root.Resource["deployment.environment"] != "ci" {
		t.Errorf("resource = %v, want service.name core-test and OTEL_RESOURCE_ATTRIBUTES' deployment.environment ci", root.Resource)
	}
	turns := rcv.Named(telemetry.SpanTurn)
	if len(turns) != 2 {
		t.Fatalf("%d turn spans, want 2: %v", len(turns), names(rcv.Spans()))
	}
	byTurn := map[int64]otlp.Span{}
	for _, s := range turns {
		if s.Parent != root.SpanID {
			t.Errorf("turn %v's parent %s, want the root", s.Attrs["core.turn"], s.Parent)
		}
		byTurn[s.Attrs["core.turn"].(int64)] = s
	}
	chats := rcv.Named("chat qwen3")
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2", len(chats))
	}
	c1 := chats[0]
	if c1.Attrs["core.turn"] != int64(1) {
		c1 = chats[1]
	}
	if c1.Parent != byTurn[1].SpanID || c1.Kind != "SPAN_KIND_CLIENT" || c1.Attrs["gen_ai.request.model"] != "qwen3" ||
		c1.Attrs["gen_ai.usage.input_tokens"] != int64(1200) || c1.Attrs["gen_ai.usage.output_tokens"] != int64(80) || c1.Attrs["core.retries"] != int64(1) || c1.Attrs["core.cost_usd"] != 0.002 {
		t.Errorf("turn 1's request: %+v", c1)
	}
	if d := c1.End.Sub(c1.Start); d != 2*time.Second {
		t.Errorf("request span took %s, want its event's 2s (began DurationMS before its Time)", d)
	}
	shell := one(t, rcv, "execute_tool run_shell")
	if shell.Parent != byTurn[1].SpanID || shell.Attrs["gen_ai.tool.name"] != "run_shell" || shell.StatusCode != "STATUS_CODE_UNSET" {
		t.Errorf("run_shell span: %+v", shell)
	}
	cmds := rcv.Named("command go")
	if len(cmds) != 2 {
		t.Fatalf("%d command spans, want 2", len(cmds))
	}
	check := one(t, rcv, telemetry.SpanCheck)
	if check.Parent != root.SpanID || check.Attrs["core.verdict"] != "fixed" || check.Attrs["core.check.name"] != "go test ./..." {
		t.Errorf("check span: %+v", check)
	}
	for _, c := range cmds {
		want := shell.SpanID
		if c.Attrs["process.exit.code"] == int64(0) {
			want = check.SpanID
		}
		if c.Parent != want || c.Attrs["core.sandbox.backend"] != "bwrap" {
			t.Errorf("command (exit %v) parent %s, want %s; %+v", c.Attrs["process.exit.code"], c.Parent, want, c)
		}
	}
	failed := cmds[0]
	if failed.Attrs["process.exit.code"] != int64(1) {
		failed = cmds[1]
	}
	if failed.StatusCode != "STATUS_CODE_ERROR" || failed.Attrs["core.outcome"] != "failed" {
		t.Errorf("a command that exited 1: status %s, outcome %v", failed.StatusCode, failed.Attrs["core.outcome"])
	}
	write := one(t, rcv, "execute_tool write_file")
	if write.Parent != byTurn[2].SpanID || write.StatusCode != "STATUS_CODE_ERROR" {
		t.Errorf("declined write_file: %+v", write)
	}
	land := one(t, rcv, telemetry.SpanLand)
	if land.Parent != root.SpanID || land.Attrs["core.land.target"] != "core-session/abc https://github.com/o/r/pull/7" {
		t.Errorf("land span: %+v", land)
	}
	// No content without the opt-in: no goal, target, command line or
	// message text anywhere, and never the scrubbed secret.
	for _, s := range rcv.Spans() {
		for _, k := range []string{"core.goal", "core.tool.target", "process.command_line", "core.text"} {
			if v, ok := s.Attrs[k]; ok {
				t.Errorf("span %s exports %s = %v without the opt-in", s.Name, k, v)
			}
		}
		noSecret(t, s)
	}
	if write.StatusText != "the tool call failed or was declined" {
		t.Errorf("a tool's error text exported without the opt-in: %q", write.StatusText)
	}
	for _, req := range rcv.Requests() {
		if req.URL.Path == "/v1/traces" && req.Header.Get("Authorization") != "Bearer otlp-secret" {
			t.Errorf("the traces export did not carry OTEL_EXPORTER_OTLP_TRACES_HEADERS")
		}
	}
	metrics(t, rcv)
}

func noSecret(t *testing.T, s otlp.Span) {
	t.Helper()
	all := []map[string]any{s.Attrs}
	for _, e := range s.Events {
		all = append(all, e.Attrs)
	}
	for _, m := range all {
		for k, v := range m {
			if str, ok := v.(string); ok && containsSecret(str) {
				t.Errorf("span %s: %s holds the secret: %q", s.Name, k, str)
			}
		}
	}
}

func containsSecret(s string) bool {
	for i := 0; i+len("hunter2-secret") <= len(s); i++ {
		if s[i:i+len("hunter2-secret")] == "hunter2-secret" {
			return true
		}
	}
	return false
}

func metrics(t *testing.T, rcv *otlp.Receiver) {
	t.Helper()
	last := map[string]otlp.Point{}
	for _, p := range rcv.Points() {
		key := p.Metric
		for _, k := range []string{"core.ending", "gen_ai.token.type", "core.verdict", "core.outcome"} {
			if v, ok := p.Attrs[k]; ok {
				key += " " + v.(string)
			}
		}
		last[key] = p
	}
	for key, want := range map[string]float64{"core.runs completed": 1, "core.contract.checks fixed": 1, "core.cost": 0.005} {
		if p, ok := last[key]; !ok || p.Value < want-1e-9 || p.Value > want+1e-9 {
			t.Errorf("metric %s = %+v (found %v), want %v", key, p, ok, want)
		}
	}
	for key, want := range map[string]float64{"gen_ai.client.token.usage input": 2700, "gen_ai.client.token.usage output": 120} {
		if p := last[key]; p.Sum != want || p.Count != 2 {
			t.Errorf("histogram %s: count %d sum %v, want 2 and %v", key, p.Count, p.Sum, want)
		}
	}
	if p := last["core.sandbox.command.duration failed"]; p.Count != 1 || p.Sum != 0.5 || p.Attrs["core.sandbox.backend"] != "bwrap" {
		t.Errorf("command duration of the failed command: %+v", p)
	}
	if p := last["core.cost"]; p.Attrs["core.repository"] != "o/r" || p.Attrs["gen_ai.request.model"] != "qwen3" {
		t.Errorf("cost's attributes: %v", p.Attrs)
	}
}

func TestRunTraceContentOptIn(t *testing.T) {
	rcv := otlp.New(t)
	tel := exporter(t, rcv, true)
	script(t, tel, live.RunInfo{Session: "s2", Repository: "o/r"}, t.Context())
	root := one(t, rcv, telemetry.SpanRun)
	if root.Attrs["core.goal"] == nil {
		t.Errorf("goal not exported with the opt-in: %v", root.Attrs)
	}
	if got := one(t, rcv, "execute_tool write_file"); got.Attrs["core.tool.target"] != "parser/parse.go" || got.StatusText == "the tool call failed or was declined" {
		t.Errorf("opted in, the tool's target and error: %+v", got)
	}
	for _, c := range rcv.Named("command go") {
		if c.Attrs["process.command_line"] == nil {
			t.Errorf("opted in, a command's line is missing: %v", c.Attrs)
		}
	}
	var text any
	for _, e := range root.Events {
		if e.Name == "message" {
			text = e.Attrs["core.text"]
		}
	}
	if text == nil {
		t.Errorf("opted in, a person's message has no text: %+v", root.Events)
	}
	for _, s := range rcv.Spans() {
		noSecret(t, s) // scrubbed by the log before any listener sees it
	}
}

func TestRunLinkedToDispatch(t *testing.T) {
	rcv := otlp.New(t)
	tel := exporter(t, rcv, false)
	ctx, done := tel.Dispatch(t.Context(), "run-42", "o/r", "local")
	script(t, tel, live.RunInfo{Session: "20261205-xyz", Repository: "o/r"}, ctx)
	done(nil)
	if err := tel.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	root, dispatch := one(t, rcv, telemetry.SpanRun), one(t, rcv, "dispatch local")
	want := telemetry.RunTrace("run-42")
	if root.TraceID != want.TraceID().String() || root.SpanID != want.SpanID().String() || root.Parent != "" {
		t.Errorf("a run the bot started: root %s/%s, want the ids of its run id %s/%s", root.TraceID, root.SpanID, want.TraceID(), want.SpanID())
	}
	if root.Attrs["core.run.key"] != "run-42" {
		t.Errorf("core.run.key = %v", root.Attrs["core.run.key"])
	}
	if !linked(dispatch, root) || !linked(root, dispatch) {
		t.Errorf("dispatch links %v, root links %v: want each linked to the other", dispatch.Links, root.Links)
	}
}

func linked(from, to otlp.Span) bool {
	for _, l := range from.Links {
		if l.TraceID == to.TraceID && l.SpanID == to.SpanID {
			return true
		}
	}
	return false
}

func TestResumeKeepsTheTrace(t *testing.T) {
	rcv := otlp.New(t)
	tel := exporter(t, rcv, false)
	script(t, tel, live.RunInfo{Session: "s3"}, t.Context())
	script(t, tel, live.RunInfo{Session: "s3", Resumed: true}, t.Context())
	roots := rcv.Named(telemetry.SpanRun)
	if len(roots) != 2 || roots[0].TraceID != roots[1].TraceID || roots[0].SpanID == roots[1].SpanID {
		t.Errorf("a run and its resume: %+v; want one trace, two root spans", roots)
	}
}
