package telemetry

import (
	"context"
	"path"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/live"
)

// slack is how far a command's times may pass its tool call's or check's
// and still be held by it (times are stamped when an event is added, and
// durations are whole milliseconds).
const slack = 5 * time.Millisecond

// made is a span made from a held step event, with its times.
type made struct {
	e          live.Event
	start, end time.Time
	ctx        context.Context
}

func (m made) holds(e live.Event) bool {
	return !begin(e).Before(m.start.Add(-slack)) && !e.Time.After(m.end.Add(slack))
}

// flush makes the spans of the held events: a span per turn, its
// requests and tool calls under it, the checks, the dependency step and
// landing under the run, each command under the tool call or check whose
// time holds it, else under its turn, else under the run.
func (w *runWatch) flush() {
	if len(w.pending) == 0 {
		return
	}
	held := w.pending
	w.pending, w.turn = nil, 0
	turns := w.turnSpans(held)
	var tools, checks []made
	for _, e := range held {
		switch e.Kind {
		case live.EventTool:
			tools = append(tools, w.step(parent(turns, e, w.rootCtx), e))
		case live.EventCheck:
			checks = append(checks, w.step(w.rootCtx, e))
		case live.EventRequest:
			w.step(parent(turns, e, w.rootCtx), e)
		case live.EventDeps, live.EventLand:
			w.step(w.rootCtx, e)
		}
	}
	for _, e := range held {
		if e.Kind != live.EventCommand {
			continue
		}
		ctx := parent(turns, e, w.rootCtx)
		if m, ok := holder(tools, e, true); ok {
			ctx = m.ctx
		} else if m, ok := holder(checks, e, false); ok {
			ctx = m.ctx
		}
		w.step(ctx, e)
	}
}

func parent(turns map[int]context.Context, e live.Event, root context.Context) context.Context {
	if ctx, ok := turns[e.Turn]; ok {
		return ctx
	}
	return root
}

func holder(in []made, e live.Event, sameTurn bool) (made, bool) {
	for _, m := range in {
		if (!sameTurn || m.e.Turn == e.Turn) && m.holds(e) {
			return m, true
		}
	}
	return made{}, false
}

// turnSpans makes a span for each turn among held, from its first step's
// start (or the end of the turn before) to its last step's end.
func (w *runWatch) turnSpans(held []live.Event) map[int]context.Context {
	type span struct {
		start, end time.Time
		e          *live.Event // the turn's own event
	}
	spans := map[int]*span{}
	var order []int
	for i, e := range held {
		if e.Turn <= 0 {
			continue
		}
		s, ok := spans[e.Turn]
		if !ok {
			s = &span{start: e.Time, end: e.Time}
			spans[e.Turn] = s
			order = append(order, e.Turn)
		}
		if e.Kind == live.EventTurn {
			s.e = &held[i]
		} else if b := begin(e); b.Before(s.start) {
			s.start = b
		}
		if e.Time.After(s.end) {
			s.end = e.Time
		}
	}
	out := map[int]context.Context{}
	for _, n := range order {
		s := spans[n]
		if s.e != nil && s.start.Equal(s.e.Time) && w.mark.Before(s.start) {
			s.start = w.mark // only its turn event: it began where the last ended
		}
		attrs := []attribute.KeyValue{attribute.Int(AttrTurn, n)}
		if s.e != nil {
			attrs = append(attrs, attribute.String(AttrToolName, s.e.Tool))
			if w.t.content && s.e.Target != "" {
				attrs = append(attrs, attribute.String(AttrToolTarget, s.e.Target))
			}
		}
		ctx, sp := w.t.tracer.Start(w.rootCtx, SpanTurn, trace.WithTimestamp(s.start), trace.WithAttributes(attrs...))
		sp.End(trace.WithTimestamp(s.end))
		out[n] = ctx
		if s.end.After(w.mark) {
			w.mark = s.end
		}
	}
	return out
}

// step makes the span of one step event under ctx.
func (w *runWatch) step(ctx context.Context, e live.Event) made {
	name, attrs, failed, why := w.describe(e)
	if e.Turn > 0 {
		attrs = append(attrs, attribute.Int(AttrTurn, e.Turn))
	}
	kind := trace.SpanKindInternal
	if e.Kind == live.EventRequest {
		kind = trace.SpanKindClient
	}
	start := begin(e)
	ctx, sp := w.t.tracer.Start(ctx, name, trace.WithTimestamp(start), trace.WithAttributes(attrs...), trace.WithSpanKind(kind))
	if failed {
		sp.SetStatus(codes.Error, clip.Line(why, textMax))
	}
	sp.End(trace.WithTimestamp(e.Time))
	return made{e: e, start: start, end: e.Time, ctx: ctx}
}

// describe is a step's span name and attributes, and whether it failed
// and why. Texts that may carry the model's or the workspace's words
// (targets, command lines, a tool's error) go only with content on.
func (w *runWatch) describe(e live.Event) (name string, attrs []attribute.KeyValue, failed bool, why string) {
	content := w.t.content
	switch e.Kind {
	case live.EventRequest:
		attrs = []attribute.KeyValue{attribute.String(AttrOperation, OpChat), attribute.String(AttrRequestModel, e.Model),
			attribute.Int(AttrInputTokens, e.InputTokens), attribute.Int(AttrOutputTokens, e.OutputTokens), attribute.Int(AttrRetries, e.Retries)}
		if e.RequestCostUSD != nil {
			attrs = append(attrs, attribute.Float64(AttrCost, *e.RequestCostUSD))
		}
		if e.Text != "" {
			attrs = append(attrs, attribute.String(AttrErrorType, "request_failed"))
		}
		return strings.TrimSpace(OpChat + " " + e.Model), attrs, e.Text != "", e.Text
	case live.EventTool:
		attrs = []attribute.KeyValue{attribute.String(AttrOperation, OpExecuteTool), attribute.String(AttrToolName, e.Tool)}
		why = "the tool call failed or was declined"
		if content {
			attrs = appendText(attrs, AttrToolTarget, e.Target)
			why = cmpOr(e.Text, why)
		}
		if e.Text != "" {
			attrs = append(attrs, attribute.String(AttrErrorType, "tool_error"))
		}
		return OpExecuteTool + " " + e.Tool, attrs, e.Text != "", why
	case live.EventCommand:
		return w.describeCommand(e)
	case live.EventCheck:
		attrs = []attribute.KeyValue{attribute.String(AttrCheck, clip.Line(e.Check, textMax)), attribute.String(AttrVerdict, e.Verdict)}
		switch e.Verdict {
		case "regressed", "failing", "timed_out", "error":
			return SpanCheck, attrs, true, e.Verdict
		}
		return SpanCheck, attrs, false, ""
	case live.EventDeps:
		attrs = []attribute.KeyValue{attribute.String(AttrVerdict, e.Verdict)}
		return SpanDeps, attrs, e.Verdict == "failed", cmpOr(e.Text, "the dependency step failed")
	default: // live.EventLand
		attrs = appendText(nil, AttrLanded, e.Target)
		return SpanLand, attrs, e.Target == "" && e.Text != "", e.Text
	}
}

func (w *runWatch) describeCommand(e live.Event) (string, []attribute.KeyValue, bool, string) {
	exe := program(e.Target)
	attrs := []attribute.KeyValue{attribute.String(AttrExecutable, exe), attribute.String(AttrBackend, e.Backend), attribute.String(AttrOutcome, outcome(e))}
	if e.Exit != nil {
		attrs = append(attrs, attribute.Int(AttrExitCode, *e.Exit))
	}
	if e.Limit != "" {
		attrs = append(attrs, attribute.String(AttrLimit, e.Limit))
	}
	if w.t.content {
		attrs = appendText(attrs, AttrCommandLine, e.Target)
	}
	o := outcome(e)
	return strings.TrimSpace("command " + exe), attrs, o != "ok", o
}

// outcome is how a command ended, in a word: ok, failed (a non-zero
// exit), limit (core stopped it) or no_exit (it did not start, or a
// signal ended it).
func outcome(e live.Event) string {
	switch {
	case e.Limit != "":
		return "limit"
	case e.Exit == nil:
		return "no_exit"
	case *e.Exit != 0:
		return "failed"
	}
	return "ok"
}

// program is a command line's program: the base name of its first word,
// the one part of a command exported without content on.
func program(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	return clip.Line(path.Base(strings.Trim(f[0], `"'`)), 64)
}

func appendText(attrs []attribute.KeyValue, key, text string) []attribute.KeyValue {
	if text == "" {
		return attrs
	}
	return append(attrs, attribute.String(key, clip.Line(text, 4*textMax)))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// measure records the metrics of a step event as it comes.
func (w *runWatch) measure(e live.Event) {
	ctx, in := context.Background(), w.t.inst
	switch e.Kind {
	case live.EventRequest:
		model := attribute.String(AttrRequestModel, e.Model)
		op := attribute.String(AttrOperation, OpChat)
		in.tokens.Record(ctx, int64(e.InputTokens), metric.WithAttributes(op, model, w.repo, attribute.String(AttrTokenType, "input")))
		in.tokens.Record(ctx, int64(e.OutputTokens), metric.WithAttributes(op, model, w.repo, attribute.String(AttrTokenType, "output")))
		attrs := []attribute.KeyValue{op, model}
		if e.Text != "" {
			attrs = append(attrs, attribute.String(AttrErrorType, "request_failed"))
		}
		in.request.Record(ctx, e.Duration().Seconds(), metric.WithAttributes(attrs...))
		if e.RequestCostUSD != nil {
			in.cost.Add(ctx, *e.RequestCostUSD, metric.WithAttributes(model, w.repo))
		}
	case live.EventCommand:
		in.commands.Record(ctx, e.Duration().Seconds(), metric.WithAttributes(attribute.String(AttrBackend, e.Backend), attribute.String(AttrOutcome, outcome(e))))
	case live.EventCheck:
		in.checks.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrVerdict, e.Verdict), w.repo))
	}
}
