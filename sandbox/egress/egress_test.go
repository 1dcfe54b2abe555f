package egress

import (
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHostPort(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, want string }{
		{"https://registry.npmjs.org/", "registry.npmjs.org:443"},
		{"http://127.0.0.1:4873/npm/", "127.0.0.1:4873"},
		{"HTTP://Example.COM/simple", "example.com:80"},
		{"sparse+https://index.crates.io/", "index.crates.io:443"},
		{"registry+http://127.0.0.1:9/cargo-git/", "127.0.0.1:9"},
		{"http://[::1]:8080/x", "[::1]:8080"},
		{"git+https://github.com/a/b", ""},
		{"file:///srv/wheels", ""},
		{"/srv/wheels", ""},
		{"ssh://git@example.com/x", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, hostPort(tt.url), tt.url)
	}
	assert.Equal(t, []string{"a:443", "b:80"}, Hosts("https://a/", "https://A/x", "http://b/", "file:///x"))
}

func TestEgressAllowed(t *testing.T) {
	t.Parallel()
	allowed := []string{"registry.npmjs.org:443", "127.0.0.1:4873", "[::1]:8080"}
	tests := []struct {
		target string
		want   bool
	}{
		{"registry.npmjs.org:443", true},
		{"REGISTRY.npmjs.org.:443", true},
		{"127.0.0.1:4873", true},
		{"[::1]:8080", true},
		{"registry.npmjs.org:80", false},
		{"registry.npmjs.org", false},
		{"evil.registry.npmjs.org:443", false},
		{"127.0.0.1:4874", false},
		{"localhost:4873", false},
		{"127.0.0.2:4873", false},
		{":4873", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, egressAllowed(allowed, tt.target), tt.target)
	}
}

func TestHosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		urls []string
		want []string
	}{
		{name: "none", urls: nil, want: nil},
		{name: "the scheme's port", urls: []string{"https://registry.npmjs.org/", "http://127.0.0.1/simple/"}, want: []string{"registry.npmjs.org:443", "127.0.0.1:80"}},
		{name: "once each, in order", urls: []string{"https://b.example:8443/x", "https://A.example/", "https://b.example:8443/y", "https://a.example:443/"}, want: []string{"b.example:8443", "a.example:443"}},
		{name: "cargo's prefixes", urls: []string{"sparse+https://index.crates.io/", "registry+https://github.com/rust-lang/crates.io-index"}, want: []string{"index.crates.io:443", "github.com:443"}},
		{name: "no other scheme, no host, no garbage", urls: []string{"git://example.com/x", "file:///srv/index", "ftp://example.com:21/", "https:///nohost", "::not a url", ""}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Hosts(tt.urls...))
		})
	}
}

// TestProxyRefusesWhatIsNotAllowed: through its socket, the proxy tunnels
// to an allowed host:port, and answers 403 for anything else: another
// port of the same host, another name of it, a plain http:// URL to a host
// not allowed; a host it may reach but cannot is recorded in its Log.
func TestProxyRefusesWhatIsNotAllowed(t *testing.T) {
	t.Parallel()
	up, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer up.Close()
	go func() {
		for {
			c, err := up.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("hello from upstream"))
			c.Close()
		}
	}()
	down, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	downAddr := down.Addr().String()
	down.Close() // nothing listens there now
	_, port, _ := net.SplitHostPort(up.Addr().String())
	log := &Log{}
	p, err := Serve([]string{up.Addr().String(), downAddr}, log)
	require.NoError(t, err)
	defer p.Close()

	ask := func(t *testing.T, req string) string {
		t.Helper()
		c, err := net.Dial("unix", filepath.Join(p.Dir(), Socket))
		require.NoError(t, err)
		defer c.Close()
		require.NoError(t, c.SetDeadline(time.Now().Add(testkit.Patience)))
		_, err = c.Write([]byte(req))
		require.NoError(t, err)
		b, _ := io.ReadAll(c)
		return string(b)
	}
	tests := []struct {
		name, req, want string
	}{
		{name: "allowed", req: "CONNECT " + up.Addr().String() + " HTTP/1.1\r\nHost: " + up.Addr().String() + "\r\nConnection: close\r\n\r\n", want: "200 Connection established\r\n\r\nhello from upstream"},
		{name: "another port", req: "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\nConnection: close\r\n\r\n", want: " 403 "},
		{name: "another name of the host", req: "CONNECT localhost:" + port + " HTTP/1.1\r\nHost: localhost:" + port + "\r\nConnection: close\r\n\r\n", want: " 403 "},
		{name: "plain http elsewhere", req: "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n", want: " 403 "},
		{name: "not a proxy request", req: "GET / HTTP/1.1\r\nHost: " + up.Addr().String() + "\r\nConnection: close\r\n\r\n", want: " 400 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, ask(t, tt.req), tt.want)
		})
	}
	_, ok := log.First()
	assert.False(t, ok, "nothing failed to connect yet")
	assert.Contains(t, ask(t, "CONNECT "+downAddr+" HTTP/1.1\r\nHost: "+downAddr+"\r\nConnection: close\r\n\r\n"), " 502 ")
	f, ok := log.First()
	require.True(t, ok, "the allowed host it could not reach is recorded")
	assert.Equal(t, downAddr, f.Target)
}
