package sandbox

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/egress"
)

// egressProbe is Python that tries, from inside a step, a direct
// connection to the tripwire, the proxy to the tripwire, and the proxy to
// the registry (a plain request and a tunnel), and prints what each got.
const egressProbe = `import socket, sys
wire, reg = sys.argv[1], sys.argv[2]
def hp(s):
    h, p = s.rsplit(":", 1)
    return h, int(p)
def ask(req):
    try:
        s = socket.create_connection(hp("` + egress.Listen + `"), timeout=60)
    except OSError as e:
        return "no proxy: %s" % e
    s.sendall(req.encode())
    got = b""
    while b"\r\n" not in got:
        b = s.recv(4096)
        if not b:
            break
        got += b
    return s, got.split(b"\r\n")[0].decode()
try:
    socket.create_connection(hp(wire), timeout=60).sendall(b"direct\n")
    print("direct: connected")
except OSError as e:
    print("direct: failed")
s, line = ask("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (wire, wire))
print("connect wire:", line)
s, line = ask("GET http://%s/simple/greet/ HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (reg, reg))
print("get registry:", line)
s, line = ask("GET http://%s/x HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (wire, wire))
print("get wire:", line)
s, line = ask("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (reg, reg))
print("connect registry:", line)
s.sendall(("GET /simple/greet/ HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % reg).encode())
print("tunnel:", s.recv(4096).split(b"\r\n")[0].decode())
`

// TestDepsEgress: a dependency step reaches the configured registry
// through core's proxy, and nothing else: not the tripwire on another
// loopback port directly (the step has no network of its own), nor
// through the proxy, by CONNECT or by a plain request.
func TestDepsEgress(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	reg := registry.NewRegistry(t)
	reg.AddWheel("greet", "1.0.0", map[string]string{"greet/__init__.py": ""})
	wire := registry.NewTripwire(t)
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0]})
	requireTool(t, sb, "python3")
	p := sb.Probe(t.Context())
	require.True(t, p.Usable)
	regAddr := strings.TrimPrefix(reg.URL, "http://")
	plan := deps.Plan{Eco: "python", Tool: "python3", Argv: []string{"python3", "-c", egressProbe, wire.Addr, regAddr}, Hosts: egress.Hosts(reg.URL)}
	r, err := sb.fetchConfined(t.Context(), p.Bwrap, plan, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assert.Empty(t, wire.Hits(), "the step reached a port that is no registry's:\n%s", r.Output)
	for _, want := range []string{
		"direct: failed\n",
		"connect wire: HTTP/1.1 403 Forbidden\n",
		"get registry: HTTP/1.1 200 OK\n",
		"get wire: HTTP/1.1 403 Forbidden\n",
		"connect registry: HTTP/1.1 200 Connection established\n",
		"tunnel: HTTP/1.1 200 OK\n",
	} {
		assert.Contains(t, r.Output, want)
	}
	assert.Equal(t, 2, strings.Count(strings.Join(reg.Requests(), "\n"), "/simple/greet/"), "the registry got both requests")
}
