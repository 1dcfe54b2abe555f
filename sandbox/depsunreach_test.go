package sandbox

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox/deps"
)

// TestDependencyStepIndexUnreachable: pip whose index refuses connections
// is reported as an unreachable index, with the evidence, as a
// *deps.Unreachable in Result.Deps; not as a package without a wheel.
func TestDependencyStepIndexUnreachable(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close()) // refuses connections from now on
	sb := New(Config{Home: t.TempDir(), Mode: ModeBwrap, Path: os.Getenv("PATH"), HostHome: os.Getenv("HOME"), Agent: os.Args[0],
		HostEnv: []string{"PIP_INDEX_URL=http://" + closed + "/simple/"}})
	requireTool(t, sb, "python3")
	ws := newWorkspace(t)
	writeFiles(t, ws, map[string]string{"requirements.txt": "greet==1.0.0\n"})
	r, err := sb.Run(t.Context(), []string{"python3", "-c", "import greet"}, RunOptions{Workspace: ws, NoBox: true, Timeout: 5 * time.Minute})
	require.NoError(t, err)
	assert.NotEqual(t, 0, r.ExitCode)
	var u *deps.Unreachable
	require.ErrorAs(t, r.Deps, &u, r.Output)
	assert.Equal(t, "python", u.Eco)
	assert.Equal(t, closed, u.Host)
	assert.Contains(t, u.Cause, "connection refused")
	assert.NotEmpty(t, u.Evidence)
	t.Logf("reported: %v", u)
	assert.True(t, strings.HasPrefix(r.Output, "core fetched no Python dependencies: "+closed+" could not be reached (connection refused), an outage of the environment"), r.Output)
	assert.NotContains(t, r.Output, "source build", "an index that cannot be reached is not a package without a wheel")
}
