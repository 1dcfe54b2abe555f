package telemetry_test

import (
	"strings"
	"testing"

	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/telemetry"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestConfigFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		env                 map[string]string
		traces, metrics     string
		wantErr, wantNoLeak string
		content             bool
	}{
		{name: "nothing set is off", env: map[string]string{"HOME": "/root"}},
		{name: "disabled wins", env: map[string]string{telemetry.EnvEndpoint: "http://c:4318", telemetry.EnvDisabled: "true"}},
		{name: "base endpoint", env: map[string]string{telemetry.EnvEndpoint: "http://c:4318/"}, traces: "http://c:4318/v1/traces", metrics: "http://c:4318/v1/metrics"},
		{name: "service name alone: the SDK's default", env: map[string]string{telemetry.EnvServiceName: "core"}, traces: "http://localhost:4318/v1/traces", metrics: "http://localhost:4318/v1/metrics"},
		{name: "traces only", env: map[string]string{telemetry.EnvTracesEndpoint: "https://c/traces"}, traces: "https://c/traces"},
		{name: "metrics exporter none", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvMetricsExporter: "none"}, traces: "http://c/v1/traces"},
		{name: "grpc refused", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvProtocol: "grpc"}, wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{name: "not a URL", env: map[string]string{telemetry.EnvEndpoint: "c:4318"}, wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT must be"},
		{name: "user info refused, not repeated", env: map[string]string{telemetry.EnvTracesEndpoint: "https://u:s3cret@c/v1/traces"}, wantErr: "no user info", wantNoLeak: "s3cret"},
		{name: "bad header, its value not repeated", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvHeaders: "Authorization=Bearer%zzs3cret"}, wantErr: "pair 1 (Authorization)", wantNoLeak: "s3cret"},
		{name: "bad timeout", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvTimeout: "soon"}, wantErr: "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{name: "unknown exporter", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvTracesExporter: "zipkin"}, wantErr: "OTEL_TRACES_EXPORTER"},
		{name: "content opt-in", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvCaptureContent: "TRUE"}, traces: "http://c/v1/traces", metrics: "http://c/v1/metrics", content: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := telemetry.ConfigFrom(env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
				if tt.wantNoLeak != "" && strings.Contains(err.Error(), tt.wantNoLeak) {
					t.Errorf("the error repeats a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.TracesURL != tt.traces || c.MetricsURL != tt.metrics || c.Content != tt.content {
				t.Errorf("got traces %q metrics %q content %v, want %q %q %v", c.TracesURL, c.MetricsURL, c.Content, tt.traces, tt.metrics, tt.content)
			}
			if c.On() && (c.Timeout != telemetry.DefaultTimeout || c.Service == "") {
				t.Errorf("defaults: timeout %s service %q", c.Timeout, c.Service)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	t.Parallel()
	c, err := telemetry.ConfigFrom(env(map[string]string{telemetry.EnvEndpoint: "http://c",
		telemetry.EnvHeaders: "Authorization=Basic%20abc, x-team = core", telemetry.EnvTracesHeaders: "x-team=traces"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.TracesHeaders["Authorization"] != "Basic abc" || c.TracesHeaders["x-team"] != "traces" || c.MetricsHeaders["x-team"] != "core" {
		t.Errorf("traces %v metrics %v", c.TracesHeaders, c.MetricsHeaders)
	}
}

func TestOffMakesNothing(t *testing.T) {
	t.Parallel()
	tel, err := telemetry.New(env(map[string]string{"PATH": "/bin"}))
	if err != nil || tel != nil {
		t.Fatalf("New with no OTEL variable = %v, %v; want nil, nil", tel, err)
	}
	// A nil exporter's methods do nothing and never fail.
	listen, end := tel.Observe(t.Context(), liveInfo())
	if listen != nil || end != nil {
		t.Error("a nil exporter returned a listener")
	}
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Error(err)
	}
	ctx, done := tel.Dispatch(t.Context(), "run-1", "o/r", "local")
	done(nil)
	if telemetry.RunKey(ctx) != "run-1" {
		t.Error("Dispatch on a nil exporter dropped the run's key")
	}
}

func FuzzHeaders(f *testing.F) {
	for _, s := range []string{"", "a=b", "Authorization=Bearer%20x,k=v", "=x", "a=%zz", "a=b,,c=d", "k=v\r\nX: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := telemetry.Headers(s)
		if err != nil {
			return
		}
		for k, v := range h {
			if k == "" || strings.ContainsAny(k, " \t\r\n:=,") || strings.ContainsAny(v, "\r\n\x00") {
				t.Fatalf("Headers(%q) accepted %q: %q", s, k, v)
			}
		}
	})
}

func liveInfo() live.RunInfo { return live.RunInfo{Session: "s", Repository: "o/r"} }

// TestResourceAttributes: OTEL_RESOURCE_ATTRIBUTES adds to the resource;
// OTEL_SERVICE_NAME wins over its service.name, which wins over core's
// own name; a malformed list is refused, naming the variable.
func TestResourceAttributes(t *testing.T) {
	t.Parallel()
	base := map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvResourceAttributes: "deployment.environment=ci,team=a%20b,service.name=from-attrs"}
	c, err := telemetry.ConfigFrom(env(base))
	if err != nil {
		t.Fatal(err)
	}
	if c.Service != "from-attrs" || c.Resource["deployment.environment"] != "ci" || c.Resource["team"] != "a b" || len(c.Resource) != 2 {
		t.Errorf("service %q resource %v", c.Service, c.Resource)
	}
	base[telemetry.EnvServiceName] = "named"
	if c, err = telemetry.ConfigFrom(env(base)); err != nil || c.Service != "named" {
		t.Errorf("service %q (%v), want OTEL_SERVICE_NAME's", c.Service, err)
	}
	base[telemetry.EnvResourceAttributes] = "no-equals"
	if _, err = telemetry.ConfigFrom(env(base)); err == nil || !strings.Contains(err.Error(), telemetry.EnvResourceAttributes) {
		t.Errorf("err = %v, want one naming %s", err, telemetry.EnvResourceAttributes)
	}
}
