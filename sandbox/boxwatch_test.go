package sandbox

import (
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/sandbox/limit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitEnded waits for p's end, a bounded while, saying what it waited for.
func waitEnded(t *testing.T, p *Process, what string) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(testkit.Patience):
		out, _, _ := p.Output()
		t.Fatalf("%s: the background process still runs after %s; its output:\n%s", what, testkit.Patience, out)
	}
}

// Attack: a background writer grows the workspace past the growth limit a
// foreground command is held to. Core stops it and says so.
func TestBoxBackgroundLimits(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	cases := []struct {
		name   string
		limits limit.Limits
		script string
		want   string
		note   []string
	}{
		{
			name:   "workspace growth",
			limits: limit.Limits{WorkspaceGrowth: 8 << 20},
			script: "for i in $(seq 64); do head -c 1M /dev/zero > fill$i; sleep 0.02; done; echo survived; sleep 1000",
			want:   limit.LimitWorkspace,
			note:   []string{"the workspace grew by", "past the limit of 8M", "CORE_SANDBOX_WORKSPACE_GROWTH=16M"},
		},
		{
			name:   "memory",
			limits: limit.Limits{Memory: 64 << 20},
			script: "head -c 1G /dev/zero | tail > /dev/null && echo survived; sleep 1000",
			want:   limit.LimitMemory,
			note:   []string{"limit on memory (64M)", "CORE_SANDBOX_MEMORY=128M"},
		},
		{
			name:   "processes",
			limits: limit.Limits{Processes: 64},
			script: "for i in $(seq 300); do sleep 1000 & done; echo forked; sleep 1000",
			want:   limit.LimitProcesses,
			note:   []string{"limit on processes and threads at once (64)", "CORE_SANDBOX_PIDS=128"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want != limit.LimitWorkspace {
				requireCgroup(t, tc.want)
			}
			t.Parallel()
			sb := limited(t, tc.limits)
			ws := newWorkspace(t)
			box, err := sb.Box(t.Context(), ws)
			require.NoError(t, err)
			p, err := box.Start(t.Context(), []string{"bash", "-c", tc.script}, StartOptions{})
			require.NoError(t, err)
			waitEnded(t, p, "a background command past the "+tc.want+" limit")
			out, running, _ := p.Output()
			assert.False(t, running)
			assert.Equal(t, tc.want, p.Limit(), out)
			assert.NotContains(t, out, "survived")
			for _, s := range tc.note {
				assert.Contains(t, out, s)
			}
			// The box goes on, and a limit the background process hit is
			// not the next command's.
			r, err := box.Run(t.Context(), []string{"echo", "after"}, RunOptions{Timeout: time.Minute})
			require.NoError(t, err)
			assert.Equal(t, "after\n", r.Output)
			assert.Empty(t, r.Limit)
		})
	}
}
