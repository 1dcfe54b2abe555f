package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit/registry"
	"github.com/coreagent/core/sandbox/lang"
)

// requireTool skips unless the sandbox can find tool on PATH; where
// CORE_REQUIRE_BWRAP=1 (CI, which installs Debian's toolchains) a missing
// tool is a failure.
func requireTool(t *testing.T, sb *Sandbox, tool string) {
	t.Helper()
	if _, err := sb.findTool(tool); err != nil {
		if os.Getenv("CORE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("CORE_REQUIRE_BWRAP=1 but %v (CI installs python3-pytest, nodejs, npm and cargo)", err)
		}
		t.Skipf("%v", err)
	}
}

// TestEcosystemsRunConfined: the host's pytest, npm and cargo run in the
// production profile, offline, with their caches on the sandbox's /tmp: a
// failing test fails with its message, and passes once fixed.
func TestEcosystemsRunConfined(t *testing.T) {
	requireBwrap(t)
	for _, tt := range registry.LanguageRepos() {
		t.Run(tt.Ecosystem, func(t *testing.T) {
			t.Parallel()
			sb := newTestSandbox(t, ModeBwrap)
			requireTool(t, sb, tt.Tool)
			ws := newWorkspace(t)
			writeFiles(t, ws, tt.Files)
			opts := RunOptions{Workspace: ws, Timeout: 5 * time.Minute}
			r, err := sb.Verify(t.Context(), lang.TierTest, tt.Command, opts)
			require.NoError(t, err)
			assert.True(t, r.Sandboxed)
			assert.NotEqual(t, 0, r.ExitCode, r.Output)
			assert.Contains(t, r.Output, tt.Failure)

			writeFiles(t, ws, tt.Fix)
			r, err = sb.Verify(t.Context(), lang.TierTest, tt.Command, opts)
			require.NoError(t, err)
			require.Equal(t, 0, r.ExitCode, r.Output)
			assert.NotContains(t, strings.ToLower(r.Output), "permission denied")
		})
	}
}
