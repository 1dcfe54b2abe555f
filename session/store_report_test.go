package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

func TestMarkReport(t *testing.T) {
	t.Parallel()
	st, err := OpenStore(t.TempDir())
	require.NoError(t, err)
	r := &Record{ID: "20261201-120000-bbbbbb", RecordLife: RecordLife{Status: state.Completed}, RecordSetup: RecordSetup{Checks: []contract.Check{}}}
	require.NoError(t, st.create(r, nil))
	require.NoError(t, st.writeReport(r.ID, &Report{ID: r.ID, ReportOutcome: ReportOutcome{Status: state.Completed}}, nil))

	raw, err := st.ReportJSON(r.ID)
	require.NoError(t, err)
	onDisk, err := os.ReadFile(filepath.Join(st.Dir(r.ID), ReportFile))
	require.NoError(t, err)
	assert.Equal(t, onDisk, raw, "what is sent is what is on disk")

	require.NoError(t, st.MarkReport(t.Context(), r.ID, true))
	got, err := st.Load(r.ID)
	require.NoError(t, err)
	assert.True(t, got.ReportPending)
	assert.Equal(t, state.Completed, got.Status, "only the mark changes")
	require.NoError(t, st.MarkReport(t.Context(), r.ID, false))
	got, err = st.Load(r.ID)
	require.NoError(t, err)
	assert.False(t, got.ReportPending)

	_, err = st.ReportJSON("../x")
	assert.ErrorContains(t, err, "not a session id")
	assert.ErrorContains(t, st.MarkReport(t.Context(), "nope", true), "no session nope")
}

// endWatch is an Observer that looks at the session's files when the
// run's last state event is told.
type endWatch struct {
	store *Store
	saw   chan error
}

func (w endWatch) Observe(_ context.Context, run live.RunInfo) (func(live.Event), func()) {
	return func(e live.Event) {
		if e.Kind != live.EventState || e.Status.Live() {
			return
		}
		_, err := w.store.ReportJSON(run.Session)
		if err == nil {
			// The record says so last: a watcher that stops once the
			// record has ended has read this event.
			var rec *Record
			if rec, err = w.store.Load(run.Session); err == nil && !rec.Status.Live() {
				err = fmt.Errorf("the record says %s before the last event", rec.Status)
			}
		}
		w.saw <- err
	}, nil
}

// TestReportWrittenBeforeTheEnd: whoever sees a run end, by its last
// event or its record, can read its report (core mcp's read_report once
// follow_session says ended), and whoever sees the record end has its
// last event (core session watch stops there).
func TestReportWrittenBeforeTheEnd(t *testing.T) {
	t.Parallel()
	repo := testkit.GitRepo(t, map[string]string{"README": "hi\n"})
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: nothing to do"))
	opts := testOptions(t, srv, repo)
	opts.Landing.DryRun = true
	w := endWatch{store: opts.Services.Store, saw: make(chan error, 4)}
	opts.Live.Observer = w
	rep, err := Run(t.Context(), opts)
	require.NoError(t, err)
	require.Equal(t, state.Completed, rep.Status)
	require.Len(t, w.saw, 1, "one last state event")
	assert.NoError(t, <-w.saw, "the report is on disk, the record not yet ended, when the last event is told")
}
