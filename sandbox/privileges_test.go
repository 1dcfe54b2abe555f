package sandbox

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// privilegeScript prints what /proc/self/status says a process may do: its
// capability sets, no_new_privs, and its seccomp mode and filter count.
const privilegeScript = `grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Seccomp_filters):' /proc/self/status`

// privileges parses privilegeScript's output into its fields.
func privileges(t *testing.T, output string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, line := range strings.Split(output, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			got[k] = strings.TrimSpace(v)
		}
	}
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "Seccomp_filters"} {
		require.Contains(t, got, k, "/proc/self/status inside has no %s line:\n%s", k, output)
	}
	return got
}

// assertUnprivileged checks, from inside, what a confined process really
// has, whoever started core (root in CI and in the Action): no capability
// in any set, including the bounding set (nothing to regain through exec),
// no_new_privs set (no setuid binary gives any back), and a seccomp filter
// loaded.
func assertUnprivileged(t *testing.T, output string) {
	t.Helper()
	got := privileges(t, output)
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		assert.Equal(t, "0000000000000000", got[k], "%s: the confined process holds capabilities", k)
	}
	assert.Equal(t, "1", got["NoNewPrivs"], "no_new_privs is not set: a setuid binary inside would gain privileges")
	assert.Equal(t, "2", got["Seccomp"], "no seccomp filter is loaded (mode 2 is a filter)")
	n, err := strconv.Atoi(got["Seccomp_filters"])
	require.NoError(t, err, output)
	assert.GreaterOrEqual(t, n, 1, "Seccomp_filters")
}

// checkUnprivileged runs privilegeScript through run in a new workspace
// and checks what it printed (assertUnprivileged).
func checkUnprivileged(t *testing.T, run func(ws string) (Result, error)) {
	t.Helper()
	r, err := run(newWorkspace(t))
	require.NoError(t, err)
	require.True(t, r.Sandboxed)
	require.Equal(t, 0, r.ExitCode, r.Output)
	assertUnprivileged(t, r.Output)
}

// TestConfinedProcessHasNoPrivileges: under bwrap, in the profile every
// command runs in and in the network profile of the module download.
func TestConfinedProcessHasNoPrivileges(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	sb := newTestSandbox(t, ModeBwrap)
	bwrap, err := exec.LookPath("bwrap")
	require.NoError(t, err)
	argv := []string{"bash", "-c", privilegeScript}
	tests := []struct {
		name string
		run  func(ws string) (Result, error)
	}{
		{name: "a command", run: func(ws string) (Result, error) {
			return sb.Run(t.Context(), argv, RunOptions{Workspace: ws, Timeout: time.Minute})
		}},
		{name: "the network profile", run: func(ws string) (Result, error) {
			return sb.runNetwork(t.Context(), bwrap, argv, RunOptions{Workspace: ws, Timeout: time.Minute})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkUnprivileged(t, tt.run)
		})
	}
}
