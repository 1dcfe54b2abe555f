package sandbox

import (
	"testing"
	"time"

	"github.com/coreagent/core/sandbox/limit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimitsFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    func(l *limit.Limits)
		wantErr string
	}{
		{name: "defaults", env: map[string]string{}, want: func(*limit.Limits) {}},
		{name: "all raised", env: map[string]string{
			"CORE_SANDBOX_PIDS": "4096", "CORE_SANDBOX_MEMORY": "8G", "CORE_SANDBOX_CPU": "2h",
			"CORE_SANDBOX_FILE_SIZE": "2GiB", "CORE_SANDBOX_TMP": "1024M", "CORE_SANDBOX_WORKSPACE_GROWTH": "3g",
		}, want: func(l *limit.Limits) {
			*l = limit.Limits{Processes: 4096, Memory: 8 << 30, CPUTime: 2 * time.Hour, FileSize: 2 << 30, Tmp: 1 << 30, WorkspaceGrowth: 3 << 30}
		}},
		{name: "bytes", env: map[string]string{"CORE_SANDBOX_TMP": "1048576"}, want: func(l *limit.Limits) { l.Tmp = 1 << 20 }},
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
			want := limit.DefaultLimits()
			tt.want(&want)
			assert.Equal(t, want, cfg.Limits)
		})
	}
}
