package gate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/coreagent/core/sandbox/limit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimitFromOutput(t *testing.T) {
	t.Parallel()
	ws := t.TempDir() // a file system with room: ENOSPC there is /tmp's
	tests := []struct {
		name   string
		exit   int
		output string
		want   string
	}{
		{name: "SIGXCPU", exit: 128 + int(syscall.SIGXCPU), want: limit.LimitCPUTime},
		{name: "cpu time said", exit: 1, output: "CPU time limit exceeded", want: limit.LimitCPUTime},
		{name: "SIGXFSZ", exit: 128 + int(syscall.SIGXFSZ), want: limit.LimitFileSize},
		{name: "EFBIG", exit: 1, output: "write out: File too large", want: limit.LimitFileSize},
		{name: "no space in /tmp", exit: 1, output: "write /tmp/x: No space left on device", want: limit.LimitTmp},
		{name: "fork refused", exit: 1, output: "fork: Resource temporarily unavailable", want: limit.LimitProcesses},
		{name: "EAGAIN without fork", exit: 1, output: "read: resource temporarily unavailable"},
		{name: "a plain failure", exit: 1, output: "FAIL"},
		{name: "success", exit: 0, output: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, LimitFromOutput(tt.exit, tt.output, ws))
		})
	}
}

// TreeSize counts the workspace's files, not its .git, and follows no link.
func TestTreeSize(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "big"), make([]byte, 1<<20), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "link")))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".git", "pack"), make([]byte, 1<<20), 0o644))
	empty := TreeSize(ws)
	assert.Less(t, empty, int64(1<<20), "neither .git nor what a link points at counts")
	require.NoError(t, os.WriteFile(filepath.Join(ws, "data"), make([]byte, 1<<20), 0o644))
	assert.GreaterOrEqual(t, TreeSize(ws)-empty, int64(1<<20))
}

func TestGroup(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "/autogroup-12", group([]byte("/autogroup-12 nice 0\n")))
	assert.Equal(t, "", group(nil))
}

// A watch-only Launch, as the box's commands use, finishes with no limit
// named when it holds no cgroup.
func TestFinishWithoutCgroup(t *testing.T) {
	t.Parallel()
	l := &Launch{limits: limit.DefaultLimits(), unyield: func() {}}
	assert.Equal(t, "", l.Finish(t.TempDir(), 128+int(syscall.SIGXCPU), ""))
	assert.Nil(t, l.Cgroup())
}
