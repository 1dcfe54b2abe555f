package session

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/prompt"
	"github.com/coreagent/core/session/state"
)

// The terminal's reader ends with its run: a run that read its input (an
// interactive run that went idle and timed out) leaves no goroutine
// reading it, and the input is left readable for its owner.
//
// Not parallel: it counts the process's goroutines reading a run's input,
// which parallel tests' runs would add to.
func TestTheInputReaderEndsWithItsRun(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
	)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	_, err = w.WriteString("y\n") // land, then nothing: the person went away
	require.NoError(t, err)

	opts := testOptions(t, srv, repo)
	opts.Live.Interactive = true
	opts.Live.IdleTimeout = 100 * time.Millisecond
	opts.Services.Input = r
	var out strings.Builder
	opts.Services.Output = &out
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	require.True(t, rep.Landed)
	assert.Zero(t, inputReaders(), "a goroutine still reads the ended run's input")

	// The input is its owner's again: no deadline left on it.
	_, err = w.WriteString("after\n")
	require.NoError(t, err)
	require.NoError(t, r.SetReadDeadline(time.Now().Add(testkit.Patience)))
	line, ok := prompt.ReadLine(r)
	assert.True(t, ok)
	assert.Equal(t, "after", line)
}

// inputReaders counts the goroutines in a run's terminal reader (lines).
func inputReaders() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "prompt.(*Lines).C.func")
}
