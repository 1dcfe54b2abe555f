package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompileOutlastsTheTimeout runs, in the box and in a sandbox of its
// own, a command whose compiler (a copy of sleep named compile) runs past
// the command's timeout: it is not killed, since it compiles, while one
// that compiles past the build ceiling is, and the ceiling is named. The
// timeouts leave the sandbox's start (not compiling) room on a busy
// machine.
func TestCompileOutlastsTheTimeout(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	for _, noBox := range []bool{false, true} {
		name := "box"
		if noBox {
			name = "own sandbox"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sb := newTestSandbox(t, ModeBwrap)
			ws := newWorkspace(t)
			sleep, err := os.ReadFile("/bin/sleep")
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(ws, "compile"), sleep, 0o755))

			r, err := sb.Run(t.Context(), []string{"sh", "-c", "./compile 3.5 && echo compiled"},
				RunOptions{Workspace: ws, Timeout: 2 * time.Second, BuildCeiling: time.Minute, NoBox: noBox})
			require.NoError(t, err)
			assert.False(t, r.TimedOut, r.Output)
			assert.Equal(t, 0, r.ExitCode, r.Output)
			assert.Contains(t, r.Output, "compiled")
			assert.Positive(t, r.Built, "the time it compiled")

			r, err = sb.Run(t.Context(), []string{"sh", "-c", "./compile 60; echo never"},
				RunOptions{Workspace: ws, Timeout: 2 * time.Second, BuildCeiling: 3 * time.Second, NoBox: noBox})
			require.NoError(t, err)
			assert.True(t, r.TimedOut, r.Output)
			assert.True(t, r.AtCeiling, r.Output)
			assert.NotContains(t, r.Output, "never")
			assert.Contains(t, r.Output, "ran past its build ceiling of 3s")
		})
	}
}
