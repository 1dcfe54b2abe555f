package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"

	"go.opentelemetry.io/otel/trace"
)

// A run's trace is named by its key: the bot's run id when the bot
// started it (in this process or, through the workflow's run_id input, on
// an Actions runner), else its session id. Its trace id and its root
// span's id are derived from the key, so that the bot's dispatch span can
// link to a run that starts on another machine with nothing passed but
// the run id the workflow already takes.

// RunTrace is the span context of the root span of the run named by key
// (its first start; a resume's root has the same trace, a span id of its
// own).
func RunTrace(key string) trace.SpanContext {
	var tid trace.TraceID
	var sid trace.SpanID
	h := sha256.Sum256([]byte("core run trace\x00" + key))
	copy(tid[:], h[:16])
	s := sha256.Sum256([]byte("core run root span\x00" + key))
	copy(sid[:], s[:8])
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true})
}

type runKeyKey struct{}

// WithRunKey returns ctx carrying the key that names the trace of a run
// started with it (the bot's run id); without one a run's key is its
// session id.
func WithRunKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, runKeyKey{}, key)
}

// RunKey is the key WithRunKey put in ctx, if any.
func RunKey(ctx context.Context) string {
	k, _ := ctx.Value(runKeyKey{}).(string)
	return k
}

// fixedRoot asks ids for a root span's ids: the trace's, and the span's
// unless zero.
type fixedRoot struct {
	trace trace.TraceID
	span  trace.SpanID
}

type fixedRootKey struct{}

// ids makes random ids, except for a run's root span (fixedRoot).
type ids struct{}

func (ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if f, ok := ctx.Value(fixedRootKey{}).(fixedRoot); ok {
		if !f.span.IsValid() {
			f.span = randomSpan()
		}
		return f.trace, f.span
	}
	var tid trace.TraceID
	for !tid.IsValid() {
		binary.BigEndian.PutUint64(tid[:8], rand.Uint64())
		binary.BigEndian.PutUint64(tid[8:], rand.Uint64())
	}
	return tid, randomSpan()
}

func (ids) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return randomSpan() }

func randomSpan() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		binary.BigEndian.PutUint64(sid[:], rand.Uint64())
	}
	return sid
}
