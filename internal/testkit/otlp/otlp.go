// Package otlp is the OpenTelemetry collector double: an OTLP/HTTP
// receiver on loopback that decodes the protobuf export requests and
// keeps the spans and metric points it received (New), and the two dead
// collectors a test needs (Refusing, Silent).
package otlp

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	metrics "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// maxBody bounds one export request.
const maxBody = 64 << 20

// Span is one span received, its ids in hex (ParentID empty for a root).
type Span struct {
	Name                    string
	TraceID, SpanID, Parent string
	Kind                    string
	Start, End              time.Time
	Attrs                   map[string]any
	Resource                map[string]any
	StatusCode, StatusText  string
	Events                  []Event
	Links                   []Link
}

// Event is a span's event.
type Event struct {
	Name  string
	Attrs map[string]any
}

// Link is a span's link to another.
type Link struct{ TraceID, SpanID string }

// Point is one data point of a metric: a sum's or gauge's Value, a
// histogram's Count and Sum.
type Point struct {
	Metric, Unit string
	Attrs        map[string]any
	Value        float64
	Count        uint64
	Sum          float64
}

// Receiver is a collector on loopback that records what it was sent.
type Receiver struct {
	// URL is the base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT).
	URL string

	mu       sync.Mutex
	spans    []Span
	points   []Point
	requests []*http.Request
}

// New starts a receiver on 127.0.0.1, closed when the test ends.
func New(t testing.TB) *Receiver {
	t.Helper()
	r, srv := unstarted(t)
	srv.Start()
	r.URL = srv.URL
	return r
}

func unstarted(t testing.TB) (*Receiver, *httptest.Server) {
	r := &Receiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.traces)
	mux.HandleFunc("POST /v1/metrics", r.metrics)
	srv := httptest.NewUnstartedServer(mux)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otlp receiver: %v", err)
	}
	srv.Listener = ln
	t.Cleanup(srv.Close)
	return r, srv
}

func body(w http.ResponseWriter, req *http.Request, msg proto.Message) bool {
	var rd io.Reader = http.MaxBytesReader(w, req.Body, maxBody)
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(rd)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return false
		}
		rd = io.LimitReader(gz, maxBody)
	}
	b, err := io.ReadAll(rd)
	if err == nil {
		err = proto.Unmarshal(b, msg)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func reply(w http.ResponseWriter, msg proto.Message) {
	b, _ := proto.Marshal(msg)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

func (r *Receiver) traces(w http.ResponseWriter, req *http.Request) {
	var in coltrace.ExportTraceServiceRequest
	if !body(w, req, &in) {
		return
	}
	var got []Span
	for _, rs := range in.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					Parent: hex.EncodeToString(s.GetParentSpanId()), Kind: s.GetKind().String(),
					Start: time.Unix(0, int64(s.GetStartTimeUnixNano())), End: time.Unix(0, int64(s.GetEndTimeUnixNano())),
					Attrs: attrs(s.GetAttributes()), Resource: res, StatusCode: s.GetStatus().GetCode().String(), StatusText: s.GetStatus().GetMessage()}
				for _, e := range s.GetEvents() {
					sp.Events = append(sp.Events, Event{Name: e.GetName(), Attrs: attrs(e.GetAttributes())})
				}
				for _, l := range s.GetLinks() {
					sp.Links = append(sp.Links, Link{TraceID: hex.EncodeToString(l.GetTraceId()), SpanID: hex.EncodeToString(l.GetSpanId())})
				}
				got = append(got, sp)
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.requests = append(r.requests, req)
	r.mu.Unlock()
	reply(w, &coltrace.ExportTraceServiceResponse{})
}

func (r *Receiver) metrics(w http.ResponseWriter, req *http.Request) {
	var in colmetrics.ExportMetricsServiceRequest
	if !body(w, req, &in) {
		return
	}
	var got []Point
	for _, rm := range in.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				got = append(got, points(m)...)
			}
		}
	}
	r.mu.Lock()
	r.points = append(r.points, got...)
	r.requests = append(r.requests, req)
	r.mu.Unlock()
	reply(w, &colmetrics.ExportMetricsServiceResponse{})
}

func points(m *metrics.Metric) []Point {
	var out []Point
	num := func(dp *metrics.NumberDataPoint) {
		v := dp.GetAsDouble()
		if _, ok := dp.GetValue().(*metrics.NumberDataPoint_AsInt); ok {
			v = float64(dp.GetAsInt())
		}
		out = append(out, Point{Metric: m.GetName(), Unit: m.GetUnit(), Attrs: attrs(dp.GetAttributes()), Value: v})
	}
	switch d := m.GetData().(type) {
	case *metrics.Metric_Sum:
		for _, dp := range d.Sum.GetDataPoints() {
			num(dp)
		}
	case *metrics.Metric_Gauge:
		for _, dp := range d.Gauge.GetDataPoints() {
			num(dp)
		}
	case *metrics.Metric_Histogram:
		for _, dp := range d.Histogram.GetDataPoints() {
			out = append(out, Point{Metric: m.GetName(), Unit: m.GetUnit(), Attrs: attrs(dp.GetAttributes()), Count: dp.GetCount(), Sum: dp.GetSum()})
		}
	}
	return out
}

func attrs(kvs []*common.KeyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range kvs {
		out[kv.GetKey()] = value(kv.GetValue())
	}
	return out
}

func value(v *common.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_IntValue:
		return x.IntValue
	case *common.AnyValue_DoubleValue:
		return x.DoubleValue
	case *common.AnyValue_BoolValue:
		return x.BoolValue
	}
	return nil
}

// Spans are the spans received so far, in the order they came.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Named are the spans received with the name given.
func (r *Receiver) Named(name string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Points are the metric points received so far (each export's, in
// order: a cumulative metric's last point is its total).
func (r *Receiver) Points() []Point {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Point(nil), r.points...)
}

// Requests are the export requests received, their headers readable.
func (r *Receiver) Requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.requests...)
}

// Refusing is the URL of a port on loopback that refuses connections.
func Refusing(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otlp refusing port: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// Silent is the URL of a collector on loopback that accepts requests and
// never answers (until the test ends).
func Silent(t testing.TB) string {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-req.Context().Done():
		case <-stop:
		}
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otlp silent collector: %v", err)
	}
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv.URL
}
