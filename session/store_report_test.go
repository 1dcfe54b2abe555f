package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/contract"
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
