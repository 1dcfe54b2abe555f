package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/state"
)

// TestRecordThatCannotBeSavedEndsTheRun: when the session's record can no
// longer be written (here a directory stands where it goes, as on a disk
// that stopped taking writes), the turn that fails to save it ends the run
// as an infrastructure failure, naming the file, instead of carrying on
// with a record that no longer says what the run did.
func TestRecordThatCannotBeSavedEndsTheRun(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() {}\n",
	})
	srv := llm.NewModelServer(t,
		llm.ContentReply("tool: run_shell\ncommand: gofmt -l ."),
		llm.ContentReply("tool: done\nsummary: vetted"),
	)
	opts := buildOptions(t, srv, repo)
	opts.Goal.ID = "record-unsaveable"
	record := filepath.Join(opts.Services.Store.Dir(opts.Goal.ID), RecordFile)
	// Before the first request: the gofmt the model runs is a check the
	// record must keep, and saving it is the first write of the turns.
	opts.Services.Client = &moveHead{Completer: opts.Services.Client, n: 1, move: func() {
		require.NoError(t, os.Remove(record))
		require.NoError(t, os.MkdirAll(filepath.Join(record, "in-the-way"), 0o700))
	}}
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, state.Failed, rep.Status)
	assert.Equal(t, state.FailInfrastructure, rep.FailureKind)
	assert.Contains(t, rep.Error, RecordFile)
	assert.Len(t, srv.Requests(), 1, "no turn after the record could not be saved")
}
