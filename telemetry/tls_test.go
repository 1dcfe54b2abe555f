package telemetry_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreagent/core/internal/testkit/otlp"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/telemetry"
)

// The TLS variables, read from the environment as a user sets them, reach
// a collector that speaks HTTPS with its own CA and asks for a client
// certificate: the run's trace and metrics arrive. Without the client
// certificate the same collector receives nothing.
func TestTLSVariablesReachAMutualTLSCollector(t *testing.T) {
	t.Parallel()
	rcv, files := otlp.NewTLS(t)
	cfg, err := telemetry.ConfigFrom(env(map[string]string{telemetry.EnvEndpoint: rcv.URL, telemetry.EnvServiceName: "core-tls",
		telemetry.EnvCertificate: files.CA, telemetry.EnvClientCertificate: files.ClientCert, telemetry.EnvClientKey: files.ClientKey}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TracesTLS == nil || cfg.MetricsTLS == nil {
		t.Fatalf("TLS not read for both signals: traces %v metrics %v", cfg.TracesTLS, cfg.MetricsTLS)
	}
	tel, err := telemetry.FromConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	script(t, tel, live.RunInfo{Session: "tls-1", Repository: "o/r"}, t.Context())
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if root := one(t, rcv, telemetry.SpanRun); root.Resource["service.name"] != "core-tls" {
		t.Errorf("resource %v", root.Resource)
	}
	if len(rcv.Points()) == 0 {
		t.Error("no metric reached the collector over TLS")
	}

	// The CA alone: the collector refuses the handshake, the run goes on,
	// and the failures are counted.
	bare, err := telemetry.ConfigFrom(env(map[string]string{telemetry.EnvTracesEndpoint: rcv.URL + "/v1/traces", telemetry.EnvCertificate: files.CA}))
	if err != nil {
		t.Fatal(err)
	}
	before := len(rcv.Spans())
	tel2, err := telemetry.FromConfig(bare)
	if err != nil {
		t.Fatal(err)
	}
	script(t, tel2, live.RunInfo{Session: "tls-2"}, t.Context())
	if err := tel2.Shutdown(t.Context()); err == nil || !strings.Contains(err.Error(), "exports failed") {
		t.Errorf("Shutdown = %v, want the refused exports counted", err)
	}
	if got := len(rcv.Spans()); got != before {
		t.Errorf("without a client certificate %d spans arrived", got-before)
	}
}

func TestTLSVariablesErrors(t *testing.T) {
	t.Parallel()
	_, files := otlp.NewTLS(t)
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hunter2-not-a-cert"), 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.pem")
	if err := os.WriteFile(huge, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{telemetry.EnvEndpoint: "https://127.0.0.1:4318"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"missing CA file", with(telemetry.EnvCertificate, filepath.Join(dir, "nope.pem")), "OTEL_EXPORTER_OTLP_CERTIFICATE: open"},
		{"CA file with no certificate", with(telemetry.EnvCertificate, notPEM), "holds no PEM certificate"},
		{"a directory", with(telemetry.EnvTracesCertificate, dir), "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: " + dir + " is not a regular file"},
		{"too large", with(telemetry.EnvCertificate, huge), "too large"},
		{"certificate without key", with(telemetry.EnvClientCertificate, files.ClientCert), "go together"},
		{"key without certificate", with(telemetry.EnvMetricsClientKey, files.ClientKey), "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY go together"},
		{"mismatched pair", with(telemetry.EnvClientCertificate, files.CA, telemetry.EnvClientKey, files.ClientKey), "are not a certificate and its key"},
		{"a key that is not a key", with(telemetry.EnvClientCertificate, files.ClientCert, telemetry.EnvClientKey, notPEM), "are not a certificate and its key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := telemetry.ConfigFrom(env(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one with %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error repeats a file's content: %v", err)
			}
		})
	}
	// A signal's own variable wins over the common one; a signal that is
	// off does not read its files.
	cfg, err := telemetry.ConfigFrom(env(with(telemetry.EnvCertificate, notPEM, telemetry.EnvTracesCertificate, files.CA, telemetry.EnvMetricsExporter, "none")))
	if err != nil {
		t.Fatalf("the traces' own CA should win over the common bad one, and metrics are off: %v", err)
	}
	if cfg.TracesTLS == nil || cfg.TracesTLS.RootCAs == nil || cfg.MetricsTLS != nil {
		t.Errorf("traces TLS %v, metrics TLS %v", cfg.TracesTLS, cfg.MetricsTLS)
	}
}
