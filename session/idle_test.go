package session

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/clip"
	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

// TestIdleShowsWhereTheWorkLandedBeforeThePrompt: each landing prints its
// branch and commit and the contract's verdict before the idle prompt,
// not only in the summary after /exit; a second instruction that lands
// again prints its own.
func TestIdleShowsWhereTheWorkLandedBeforeThePrompt(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: write_file\npath: a.txt\ncontent: a"),
		llm.ContentReply("tool: done\nsummary: wrote a"),
		llm.ContentReply("tool: write_file\npath: b.txt\ncontent: b"),
		llm.ContentReply("tool: done\nsummary: wrote b"),
	)
	opts := testOptions(t, srv, repo)
	opts.Live.Interactive = true
	opts.Services.Input = strings.NewReader("y\nnow b\ny\n/exit\n")
	var out strings.Builder
	opts.Services.Output = &out
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status, rep.Error)
	first := testkit.Git(t, repo, "rev-parse", rep.Branch+"~1")
	landed := func(commit string) string {
		return regexp.QuoteMeta("? [y/N] branch: "+rep.Branch+" (commit "+clip.Hash(commit)+")\n") +
			`.*UNVERIFIED.*\n` + regexp.QuoteMeta("next instruction (/exit to stop)> ")
	}
	assert.Regexp(t, `(?s)`+landed(first)+`.*`+landed(rep.Commit)+`$`, out.String())
}

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
