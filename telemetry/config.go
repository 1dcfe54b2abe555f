package telemetry

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The standard variables core reads (the OpenTelemetry SDK's names).
const (
	EnvDisabled        = "OTEL_SDK_DISABLED"
	EnvServiceName     = "OTEL_SERVICE_NAME"
	EnvEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvMetricsEndpoint = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
	EnvHeaders         = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders   = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvMetricsHeaders  = "OTEL_EXPORTER_OTLP_METRICS_HEADERS"
	EnvTimeout         = "OTEL_EXPORTER_OTLP_TIMEOUT"
	EnvProtocol        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesExporter  = "OTEL_TRACES_EXPORTER"
	EnvMetricsExporter = "OTEL_METRICS_EXPORTER"
	EnvMetricInterval  = "OTEL_METRIC_EXPORT_INTERVAL"
	// EnvResourceAttributes adds to the resource every span and metric
	// carries (deployment.environment=ci,host.name=runner-3).
	EnvResourceAttributes = "OTEL_RESOURCE_ATTRIBUTES"
	// EnvCaptureContent is the GenAI conventions' switch for exporting
	// content (core's: goals, tool targets, command lines, messages).
	EnvCaptureContent = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
)

// Defaults of what the variables leave unset.
const (
	// DefaultEndpoint is the SDK's: a collector on this machine.
	DefaultEndpoint = "http://localhost:4318"
	// DefaultTimeout bounds one export request.
	DefaultTimeout = 5 * time.Second
	// MaxTimeout is the longest OTEL_EXPORTER_OTLP_TIMEOUT core takes.
	MaxTimeout = 30 * time.Second
	// DefaultMetricInterval is how often metrics are exported.
	DefaultMetricInterval = 30 * time.Second
	// ShutdownTimeout bounds the flush at exit: a dead collector costs
	// the process at most this much when it ends.
	ShutdownTimeout = 3 * time.Second
)

// Config is what the variables ask for. The zero Config is off.
type Config struct {
	// TracesURL and MetricsURL are where each signal goes; empty is off.
	TracesURL, MetricsURL string
	// TracesHeaders and MetricsHeaders are sent with every export: they
	// may hold credentials and are never logged.
	TracesHeaders, MetricsHeaders map[string]string
	// TracesTLS and MetricsTLS are the CA bundle and client certificate
	// the TLS variables name; nil is the system's roots and none.
	TracesTLS, MetricsTLS   *tls.Config
	Service                 string
	Timeout, MetricInterval time.Duration
	// Content exports goals, tool targets, command lines and messages.
	Content bool
	// Resource are the resource's attributes beside service.name and
	// service.version (OTEL_RESOURCE_ATTRIBUTES).
	Resource map[string]string
}

// On reports whether anything is to be exported.
func (c Config) On() bool { return c.TracesURL != "" || c.MetricsURL != "" }

// ConfigFrom reads the standard variables. Telemetry is on when an
// endpoint or OTEL_SERVICE_NAME is set and OTEL_SDK_DISABLED is not true;
// a variable core cannot honour is an error that names it.
func ConfigFrom(getenv func(string) string) (Config, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	var c Config
	if off, err := boolVar(get, EnvDisabled); err != nil || off {
		return Config{}, err
	}
	base, traces, metrics := get(EnvEndpoint), get(EnvTracesEndpoint), get(EnvMetricsEndpoint)
	if base == "" && traces == "" && metrics == "" && get(EnvServiceName) == "" {
		return Config{}, nil
	}
	if p := get(EnvProtocol); p != "" && p != "http/protobuf" {
		return Config{}, fmt.Errorf("%s=%q: core exports OTLP over HTTP only; set it to http/protobuf or unset it", EnvProtocol, p)
	}
	if base == "" && traces == "" && metrics == "" {
		base = DefaultEndpoint
	}
	var err error
	if c.TracesURL, err = signalURL(get, EnvTracesExporter, EnvTracesEndpoint, traces, base, "/v1/traces"); err != nil {
		return Config{}, err
	}
	if c.MetricsURL, err = signalURL(get, EnvMetricsExporter, EnvMetricsEndpoint, metrics, base, "/v1/metrics"); err != nil {
		return Config{}, err
	}
	common, err := Headers(get(EnvHeaders))
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", EnvHeaders, err)
	}
	if c.TracesHeaders, err = signalHeaders(get, EnvTracesHeaders, common); err != nil {
		return Config{}, err
	}
	if c.MetricsHeaders, err = signalHeaders(get, EnvMetricsHeaders, common); err != nil {
		return Config{}, err
	}
	if c.TracesURL != "" {
		if c.TracesTLS, err = signalTLS(get, tracesTLS); err != nil {
			return Config{}, err
		}
	}
	if c.MetricsURL != "" {
		if c.MetricsTLS, err = signalTLS(get, metricsTLS); err != nil {
			return Config{}, err
		}
	}
	if c.Timeout, err = millis(get, EnvTimeout, DefaultTimeout); err != nil {
		return Config{}, err
	}
	c.Timeout = min(c.Timeout, MaxTimeout)
	if c.MetricInterval, err = millis(get, EnvMetricInterval, DefaultMetricInterval); err != nil {
		return Config{}, err
	}
	if c.Content, err = boolVar(get, EnvCaptureContent); err != nil {
		return Config{}, err
	}
	if c.Resource, err = Headers(get(EnvResourceAttributes)); err != nil {
		return Config{}, fmt.Errorf("%s: %w", EnvResourceAttributes, err)
	}
	// OTEL_SERVICE_NAME wins over a service.name among the attributes,
	// which wins over core's own name (the SDK's order).
	c.Service = cmp.Or(get(EnvServiceName), c.Resource["service.name"], "core")
	delete(c.Resource, "service.name")
	return c, nil
}

// signalURL is one signal's endpoint: its own variable as it is, else
// the base with the signal's path; empty when the signal's exporter is
// none or when only the other signal has an endpoint.
func signalURL(get func(string) string, exporterVar, endpointVar, own, base, path string) (string, error) {
	switch e := get(exporterVar); e {
	case "", "otlp":
	case "none":
		return "", nil
	default:
		return "", fmt.Errorf("%s=%q: core exports with otlp only; set it to otlp or none", exporterVar, e)
	}
	u, name := own, endpointVar
	if u == "" {
		if base == "" {
			return "", nil
		}
		u, name = strings.TrimRight(base, "/")+path, EnvEndpoint
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil {
		// The value is not repeated: it may hold a credential.
		return "", fmt.Errorf("%s must be an http or https URL with a host and no user info, such as %s", name, DefaultEndpoint)
	}
	return u, nil
}

func signalHeaders(get func(string) string, name string, common map[string]string) (map[string]string, error) {
	own, err := Headers(get(name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make(map[string]string, len(common)+len(own))
	for k, v := range common {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out, nil
}

// Headers parses the W3C Baggage-like list the OTLP variables hold:
// key=value pairs separated by commas, values percent-encoded. An error
// names the pair's position, never its value (a header may be a token).
func Headers(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for i, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || !token(k) {
			return nil, fmt.Errorf("pair %d is not key=value with a header name as key; write key1=value1,key2=value2", i+1)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil || strings.ContainsAny(val, "\r\n\x00") {
			return nil, fmt.Errorf("the value of pair %d (%s) is not a percent-encoded header value", i+1, k)
		}
		out[k] = val
	}
	return out, nil
}

// token reports whether s is an HTTP header name (RFC 9110 token).
func token(s string) bool {
	for _, r := range s {
		if r > 126 || r <= 32 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

func boolVar(get func(string) string, name string) (bool, error) {
	v := get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.ToLower(v))
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false", name, v)
	}
	return b, nil
}

func millis(get func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, errors.New(name + " must be a positive number of milliseconds, got " + strconv.Quote(v))
	}
	return time.Duration(n) * time.Millisecond, nil
}
