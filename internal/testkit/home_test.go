package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The go command reads the mode GoHome wrote: telemetry off, so it starts
// no sidecar that would outlive it.
func TestGoHomeTurnsTelemetryOff(t *testing.T) {
	home := GoHome(t)
	cmd := exec.CommandContext(t.Context(), "go", "env", "GOTELEMETRY", "GOTELEMETRYDIR")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, "off\n"+filepath.Join(home, ".config", "go", "telemetry")+"\n", string(out))
}
