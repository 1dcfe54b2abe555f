package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimitsFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    func(l *Limits)
		wantErr string
	}{
		{name: "defaults", env: map[string]string{}, want: func(*Limits) {}},
		{name: "all raised", env: map[string]string{
			"CORE_SANDBOX_PIDS": "4096", "CORE_SANDBOX_MEMORY": "8G", "CORE_SANDBOX_CPU": "2h",
			"CORE_SANDBOX_FILE_SIZE": "2GiB", "CORE_SANDBOX_TMP": "1024M", "CORE_SANDBOX_WORKSPACE_GROWTH": "3g",
		}, want: func(l *Limits) {
			*l = Limits{Processes: 4096, Memory: 8 << 30, CPUTime: 2 * time.Hour, FileSize: 2 << 30, Tmp: 1 << 30, WorkspaceGrowth: 3 << 30}
		}},
		{name: "bytes", env: map[string]string{"CORE_SANDBOX_TMP": "1048576"}, want: func(l *Limits) { l.Tmp = 1 << 20 }},
		{name: "bad size", env: map[string]string{"CORE_SANDBOX_MEMORY": "lots"}, wantErr: `CORE_SANDBOX_MEMORY: want a positive size such as 512M or 4G, got "lots"`},
		{name: "negative size", env: map[string]string{"CORE_SANDBOX_TMP": "-1M"}, wantErr: "CORE_SANDBOX_TMP"},
		{name: "bad pids", env: map[string]string{"CORE_SANDBOX_PIDS": "0"}, wantErr: "CORE_SANDBOX_PIDS must be a positive number"},
		{name: "bad cpu", env: map[string]string{"CORE_SANDBOX_CPU": "10"}, wantErr: "CORE_SANDBOX_CPU must be a duration"},
		{name: "bad download timeout", env: map[string]string{"CORE_SANDBOX_DOWNLOAD_TIMEOUT": "soon"}, wantErr: "CORE_SANDBOX_DOWNLOAD_TIMEOUT must be a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := ConfigFromEnv("/state", func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			want := DefaultLimits()
			tt.want(&want)
			assert.Equal(t, want, cfg.Limits)
		})
	}
}

func TestLimitNoteSaysWhichAndHow(t *testing.T) {
	t.Parallel()
	l := DefaultLimits()
	assert.Equal(t, "\n[stopped: the sandbox's limit on memory (2G) was hit; if the command really needs more, raise it with CORE_SANDBOX_MEMORY (for example CORE_SANDBOX_MEMORY=4G)]\n", LimitNote(LimitMemory, l))
	assert.Contains(t, LimitNote(LimitProcesses, l), "CORE_SANDBOX_PIDS=2048")
	assert.Contains(t, LimitNote(LimitCPUTime, l), "CORE_SANDBOX_CPU=1h0m0s")
}

// A core killed in the middle of a command leaves its cgroups behind; the
// next one removes them.
func TestStaleCgroupsAreSwept(t *testing.T) {
	requireCgroup(t, LimitProcesses)
	dir, _ := cgroupDir("pids")
	t.Parallel()
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	stale := filepath.Join(dir, fmt.Sprintf("core-sandbox-%d-deadbeef", dead.Process.Pid))
	require.NoError(t, os.Mkdir(stale, 0o755))
	live := filepath.Join(dir, fmt.Sprintf("core-sandbox-%d-cafe", os.Getpid()))
	require.NoError(t, os.Mkdir(live, 0o755))
	defer os.Remove(live)
	cg := NewCgroup(DefaultLimits(), FindCgroupParents(), false)
	cg.Remove()
	assert.NoDirExists(t, stale)
	assert.DirExists(t, live, "a cgroup of a running core stays")
}

// A process is held once it is in every cgroup of the command, and a child
// it forks afterwards is born inside.
func TestCgroupHolds(t *testing.T) {
	requireCgroup(t, LimitProcesses)
	cg := NewCgroup(DefaultLimits(), FindCgroupParents(), false)
	defer cg.Remove()
	t.Parallel()
	sh := exec.Command("sh", "-c", "read _; sleep 30 & echo $!; wait")
	in, err := sh.StdinPipe()
	require.NoError(t, err)
	out, err := sh.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, sh.Start())
	defer func() { _ = sh.Process.Kill(); _ = sh.Wait() }()
	assert.False(t, cg.Holds(sh.Process.Pid))
	require.NoError(t, cg.Add(sh.Process.Pid))
	assert.True(t, cg.Holds(sh.Process.Pid))
	_, err = in.Write([]byte("go\n"))
	require.NoError(t, err)
	var child int
	_, err = fmt.Fscan(out, &child)
	require.NoError(t, err)
	defer func() { _ = syscall.Kill(child, syscall.SIGKILL) }()
	assert.True(t, cg.Holds(child), "the child was born in the cgroups")
}
