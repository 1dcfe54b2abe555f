package otlp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TLSFiles are the PEM files a client of a TLS receiver needs: the CA its
// certificate chains to, and a client certificate and key it accepts.
type TLSFiles struct{ CA, ClientCert, ClientKey string }

// NewTLS starts a receiver that speaks HTTPS on 127.0.0.1 with a
// certificate of a CA made for the test, and refuses a client that does
// not show a certificate of that CA (mutual TLS). Its files are in a
// temporary directory.
func NewTLS(t testing.TB) (*Receiver, TLSFiles) {
	t.Helper()
	dir := t.TempDir()
	caKey, caCert, caDER := issue(t, nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "otlp test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	})
	srvKey, _, srvDER := issue(t, caKey, caCert, &x509.Certificate{
		Subject: pkix.Name{CommonName: "127.0.0.1"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	})
	cliKey, _, cliDER := issue(t, caKey, caCert, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "core"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	})
	files := TLSFiles{CA: filepath.Join(dir, "ca.pem"), ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem")}
	writePEM(t, files.CA, "CERTIFICATE", caDER)
	writePEM(t, files.ClientCert, "CERTIFICATE", cliDER)
	writePEM(t, files.ClientKey, "PRIVATE KEY", marshalKey(t, cliKey))
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	r, srv := unstarted(t)
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}},
		ClientAuth:   tls.RequireAndVerifyClientCert, ClientCAs: pool, MinVersion: tls.VersionTLS12,
	}
	srv.StartTLS()
	r.URL = srv.URL
	return r, files
}

// issue makes a key and a certificate of tmpl signed by parent (itself
// when parent is nil).
func issue(t testing.TB, parentKey *ecdsa.PrivateKey, parent, tmpl *x509.Certificate) (*ecdsa.PrivateKey, *x509.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("otlp tls: %v", err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatalf("otlp tls: %v", err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatalf("otlp tls: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("otlp tls: %v", err)
	}
	return key, cert, der
}

func marshalKey(t testing.TB, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("otlp tls: %v", err)
	}
	return der
}

func writePEM(t testing.TB, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatalf("otlp tls: %v", err)
	}
}
