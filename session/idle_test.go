package session

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// TestFinishCompletesTheIdleRun: Finish (a Ctrl-C at the idle prompt)
// ends the wait as /exit does, though the terminal's input stays open:
// the run completes with its work landed.
func TestFinishCompletesTheIdleRun(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Control = live.NewControl()
	opts.Live.AskNext = true
	in, typing := io.Pipe() // a person who types nothing
	defer typing.Close()
	opts.Services.Input = in
	var out syncBuilder
	opts.Services.Output = &out
	wait := runAsync(t, opts)
	deadline := time.Now().Add(testkit.Patience)
	for !strings.Contains(out.String(), "next instruction (/exit to stop)> ") {
		require.True(t, time.Now().Before(deadline), "waited %s for the run's idle prompt", testkit.Patience)
		time.Sleep(10 * time.Millisecond)
	}
	_, err := opts.Live.Control.Finish()
	require.NoError(t, err)
	rep := wait()
	assert.Equal(t, state.Completed, rep.Status, rep.Error)
	assert.True(t, rep.Landed)
	_, err = opts.Live.Control.Finish()
	assert.ErrorContains(t, err, "the run is completed: only an idle run can be finished")
}
