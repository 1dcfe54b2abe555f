package deps

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/egress"
)

// TestUnreachableEvidence: the evidence is the line that says a
// connection failed, the one naming the host first; none when no line
// says so.
func TestUnreachableEvidence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, output, host, want string
	}{
		{name: "pip through the proxy", host: "127.0.0.1:9",
			output: "Looking in indexes: http://127.0.0.1:9/simple/\nWARNING: Retrying (Retry(total=4)) after connection broken by 'ProxyError('Cannot connect to proxy.')': /simple/greet/\n" +
				"WARNING: Could not fetch URL http://127.0.0.1:9/simple/greet/: 502 Server Error: Bad Gateway for url: http://127.0.0.1:9/simple/greet/\nERROR: Could not find a version that satisfies the requirement greet==1.0.0 (from versions: none)\n",
			want: "WARNING: Could not fetch URL http://127.0.0.1:9/simple/greet/: 502 Server Error: Bad Gateway for url: http://127.0.0.1:9/simple/greet/"},
		{name: "no line names the host", host: "registry.example:443",
			output: "npm error code ECONNREFUSED\nnpm error errno ECONNREFUSED\n", want: "npm error code ECONNREFUSED"},
		{name: "a line too long is cut", host: "h:1", output: "connection refused " + strings.Repeat("x", 400),
			want: "connection refused " + strings.Repeat("x", maxEvidenceLen-len("connection refused ")) + "…"},
		{name: "a failure of the code", host: "127.0.0.1:9", output: "ERROR: No matching distribution found for needsbuild==1.0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := unreachableEvidence(tt.output, tt.host)
			assert.Equal(t, tt.want != "", ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestDepsUnreachableFromLog: a failed step is the environment's only
// when the proxy could not reach a host it may reach; the evidence falls
// back to the proxy's error.
func TestDepsUnreachableFromLog(t *testing.T) {
	t.Parallel()
	assert.Nil(t, FindUnreachable("python", &egress.Log{}, []string{"127.0.0.1:9"}, "ERROR: connection refused\n"), "the proxy reached every host, and no line names one: not an outage")
	assert.Nil(t, FindUnreachable("python", nil, nil, "ERROR: connection refused\n"))
	// No proxy (the step's own network): the output's line naming a host.
	line := "WARNING: Retrying after connection broken by 'NewConnectionError(\"Failed to establish a new connection: [Errno 111] Connection refused\")': http://127.0.0.1:9/simple/greet/"
	assert.Equal(t, &Unreachable{Eco: "python", Host: "127.0.0.1:9", Cause: "the connection failed", Evidence: line},
		FindUnreachable("python", nil, []string{"pypi.org:443", "127.0.0.1:9"}, "Looking in indexes: http://127.0.0.1:9/simple/\n"+line+"\nERROR: No matching distribution\n"))
	log := &egress.Log{}
	log.Record("127.0.0.1:9", errors.New("dial tcp 127.0.0.1:9: connect: connection refused"))
	u := FindUnreachable("python", log, nil, "ERROR: Could not find a version that satisfies the requirement greet\n")
	require.NotNil(t, u)
	assert.Equal(t, &Unreachable{Eco: "python", Host: "127.0.0.1:9", Cause: "connection refused",
		Evidence: "core's proxy: dial tcp 127.0.0.1:9: connect: connection refused"}, u)
	assert.Contains(t, u.Error(), "the Python package index registry 127.0.0.1:9 could not be reached (connection refused)")
}
