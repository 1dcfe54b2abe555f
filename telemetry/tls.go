package telemetry

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
)

// The TLS variables (the SDK's names): a CA bundle the collector's
// certificate must chain to, and a client certificate and key for a
// collector that asks for one. A signal's own variable wins over the
// common one, as for the endpoints and headers.
const (
	EnvCertificate              = "OTEL_EXPORTER_OTLP_CERTIFICATE"
	EnvTracesCertificate        = "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"
	EnvMetricsCertificate       = "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE"
	EnvClientCertificate        = "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"
	EnvTracesClientCertificate  = "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE"
	EnvMetricsClientCertificate = "OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE"
	EnvClientKey                = "OTEL_EXPORTER_OTLP_CLIENT_KEY"
	EnvTracesClientKey          = "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY"
	EnvMetricsClientKey         = "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY"
)

// maxPEM bounds a certificate or key file: a bundle is kilobytes.
const maxPEM = 1 << 20

// tlsVars are one signal's three variables, its own before the common.
type tlsVars struct{ ca, cert, key [2]string }

var (
	tracesTLS  = tlsVars{ca: [2]string{EnvTracesCertificate, EnvCertificate}, cert: [2]string{EnvTracesClientCertificate, EnvClientCertificate}, key: [2]string{EnvTracesClientKey, EnvClientKey}}
	metricsTLS = tlsVars{ca: [2]string{EnvMetricsCertificate, EnvCertificate}, cert: [2]string{EnvMetricsClientCertificate, EnvClientCertificate}, key: [2]string{EnvMetricsClientKey, EnvClientKey}}
)

// signalTLS is the TLS a signal's exporter uses: nil (the system's roots,
// no client certificate) when none of its variables is set. A file that
// cannot be read or holds no certificate is an error naming its variable;
// the files are the user's, read once when the exporter is made.
func signalTLS(get func(string) string, v tlsVars) (*tls.Config, error) {
	pick := func(names [2]string) (string, string) {
		for _, n := range names {
			if p := get(n); p != "" {
				return n, p
			}
		}
		return names[1], ""
	}
	caVar, ca := pick(v.ca)
	certVar, cert := pick(v.cert)
	keyVar, key := pick(v.key)
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := readPEM(caVar, ca)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", caVar, ca)
		}
		cfg.RootCAs = pool
	}
	if (cert == "") != (key == "") {
		return nil, fmt.Errorf("%s and %s go together: set both (a client certificate and its key) or neither", certVar, keyVar)
	}
	if cert != "" {
		certPEM, err := readPEM(certVar, cert)
		if err != nil {
			return nil, err
		}
		keyPEM, err := readPEM(keyVar, key)
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			// The key's bytes are never repeated: only what is wrong.
			return nil, fmt.Errorf("%s and %s are not a certificate and its key: %v", certVar, keyVar, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// readPEM reads a file a TLS variable names: a regular file, bounded.
func readPEM(name, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s is not a regular file", name, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPEM+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxPEM {
		return nil, fmt.Errorf("%s: %s is over %d bytes, too large for a certificate or key", name, path, maxPEM)
	}
	return b, nil
}
