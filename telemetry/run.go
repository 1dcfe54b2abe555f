package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// maxPending bounds the step events a turn holds until its spans are
// made; past it they are dropped (counted on the turn's span).
const maxPending = 2048

// textMax bounds an exported text (a status description, a name).
const textMax = 256

var _ live.Observer = (*Telemetry)(nil)

// Observe starts the trace of one run: the listener makes its spans and
// records its metrics from its events (docs/telemetry.md), end ends what
// is still open. When ctx carries a span (the bot's dispatch), the run's
// root links to it and it to the root.
func (t *Telemetry) Observe(ctx context.Context, run live.RunInfo) (listen func(live.Event), end func()) {
	if t == nil {
		return nil, nil
	}
	key := RunKey(ctx)
	if key == "" {
		key = run.Session
	}
	w := &runWatch{t: t, info: run, key: key, caller: trace.SpanFromContext(ctx),
		repo: attribute.String(AttrRepository, run.Repository)}
	return w.listen, w.end
}

// runWatch turns one run's events into spans. The events of a turn are
// held until the turn ends (the next turn begins, the run goes idle or
// ends), then made spans together, so that each command finds the tool
// call or check whose time holds it, whatever order its events came in.
type runWatch struct {
	mu     sync.Mutex
	t      *Telemetry
	info   live.RunInfo
	key    string
	caller trace.Span
	repo   attribute.KeyValue

	root    trace.Span
	rootCtx context.Context
	// mark is where the next turn begins when its events tell no start.
	mark    time.Time
	last    time.Time
	turn    int
	pending []live.Event
	dropped int
	done    bool
	totals
}

// totals are what the run's root tells at its end.
type totals struct {
	turns, in, out, tokens int
	cost, reqCost          float64
	priced                 bool
	goal                   string
}

func (w *runWatch) listen(e live.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.startRoot(e)
	w.count(e)
	switch e.Kind {
	case live.EventState:
		w.root.AddEvent("state", trace.WithTimestamp(e.Time), trace.WithAttributes(attribute.String(AttrStatus, string(e.Status))))
		if e.Status == state.Idle || e.Status.Terminal() {
			w.flush()
		}
		if e.Status.Terminal() {
			w.finish(e)
		}
	case live.EventMessage:
		attrs := []attribute.KeyValue{attribute.String(AttrFrom, e.From)}
		if w.t.content {
			attrs = append(attrs, attribute.String(AttrText, e.Text))
		}
		w.root.AddEvent("message", trace.WithTimestamp(e.Time), trace.WithAttributes(attrs...))
	case live.EventInterrupt:
		w.root.AddEvent("interrupt", trace.WithTimestamp(e.Time), trace.WithAttributes(attribute.String(AttrFrom, e.From)))
	case live.EventTurn, live.EventRequest, live.EventTool, live.EventCommand, live.EventCheck, live.EventDeps, live.EventLand:
		if e.Turn > 0 && e.Turn != w.turn {
			w.flush()
			w.turn = e.Turn
		}
		w.measure(e)
		if len(w.pending) >= maxPending {
			w.dropped++
			return
		}
		w.pending = append(w.pending, e)
	}
}

// startRoot starts the run's span at its first event.
func (w *runWatch) startRoot(e live.Event) {
	if e.Time.After(w.last) {
		w.last = e.Time
	}
	if w.root != nil {
		return
	}
	at := begin(e)
	w.mark = at
	// The root's ids come from the run's key (RunTrace): a first start
	// takes both, a resume the trace's alone.
	rc := RunTrace(w.key)
	fixed := fixedRoot{trace: rc.TraceID()}
	if !w.info.Resumed {
		fixed.span = rc.SpanID()
	}
	ctx := context.WithValue(context.Background(), fixedRootKey{}, fixed)
	attrs := []attribute.KeyValue{attribute.String(AttrOperation, OpInvokeAgent), attribute.String(AttrAgentName, "core"),
		attribute.String(AttrConversation, w.info.Session), attribute.String(AttrSession, w.info.Session), w.repo,
		attribute.String(AttrKind, w.info.Kind), attribute.String(AttrRunKey, w.key), attribute.Bool(AttrResumed, w.info.Resumed)}
	opts := []trace.SpanStartOption{trace.WithNewRoot(), trace.WithTimestamp(at), trace.WithAttributes(attrs...), trace.WithSpanKind(trace.SpanKindInternal)}
	if sc := w.caller.SpanContext(); sc.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	w.rootCtx, w.root = w.t.tracer.Start(ctx, SpanRun, opts...)
	if w.caller.SpanContext().IsValid() {
		w.caller.AddLink(trace.Link{SpanContext: w.root.SpanContext()})
	}
}

// count keeps the run's totals.
func (w *runWatch) count(e live.Event) {
	w.turns = max(w.turns, e.Turn)
	w.tokens = max(w.tokens, e.Tokens)
	if e.CostUSD != nil {
		w.cost, w.priced = max(w.cost, *e.CostUSD), true
	}
	if e.Goal != "" && w.goal == "" {
		w.goal = e.Goal
	}
	if e.Kind == live.EventRequest {
		w.in += e.InputTokens
		w.out += e.OutputTokens
		if e.RequestCostUSD != nil {
			w.reqCost += *e.RequestCostUSD
			w.priced = true
		}
	}
}

// finish ends the run's span at its ending.
func (w *runWatch) finish(e live.Event) {
	if w.done {
		return
	}
	w.done = true
	attrs := []attribute.KeyValue{attribute.String(AttrEnding, string(e.Status)), attribute.Int(AttrTurns, w.turns),
		attribute.Int(AttrInputTokens, w.in), attribute.Int(AttrOutputTokens, w.out), attribute.Int(AttrTokens, max(w.tokens, w.in+w.out))}
	if e.FailureKind != "" {
		attrs = append(attrs, attribute.String(AttrFailureKind, string(e.FailureKind)))
	}
	if w.priced {
		attrs = append(attrs, attribute.Float64(AttrCost, max(w.cost, w.reqCost)))
	}
	if w.t.content && w.goal != "" {
		attrs = append(attrs, attribute.String(AttrGoal, w.goal))
	}
	if w.dropped > 0 {
		attrs = append(attrs, attribute.Int("core.dropped_steps", w.dropped))
	}
	w.root.SetAttributes(attrs...)
	if e.Status == state.Failed {
		desc := string(e.FailureKind)
		if w.t.content && e.Text != "" {
			desc = clip.Line(e.Text, textMax)
		}
		w.root.SetStatus(codes.Error, desc)
	}
	w.root.End(trace.WithTimestamp(e.Time))
	w.t.inst.runs.Add(context.Background(), 1, metric.WithAttributes(attribute.String(AttrEnding, string(e.Status)),
		attribute.String(AttrFailureKind, string(e.FailureKind)), attribute.String(AttrKind, w.info.Kind), w.repo))
}

// end ends what the run's events left open: its last turn, and its span
// when no ending reached the log.
func (w *runWatch) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.root == nil || w.done {
		return
	}
	w.flush()
	w.done = true
	w.root.SetAttributes(attribute.Int(AttrTurns, w.turns), attribute.Int(AttrInputTokens, w.in), attribute.Int(AttrOutputTokens, w.out))
	w.root.End(trace.WithTimestamp(w.last))
}

// begin is when the step e tells of began.
func begin(e live.Event) time.Time { return e.Time.Add(-e.Duration()) }
