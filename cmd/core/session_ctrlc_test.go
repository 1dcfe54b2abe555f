package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/state"
)

func TestCtrlCFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status state.Status
		again  bool
		want   ctrlCAction
	}{
		{name: "during a turn", status: state.Active, want: ctrlCInterrupt},
		{name: "while it starts", status: state.Starting, want: ctrlCInterrupt},
		{name: "at the idle prompt", status: state.Idle, want: ctrlCFinish},
		{name: "again during a turn", status: state.Active, again: true, want: ctrlCCancel},
		{name: "again at the prompt the interrupt led to", status: state.Idle, again: true, want: ctrlCCancel},
		{name: "before the run", status: state.Pending, want: ctrlCCancel},
		{name: "while it ends", status: state.Completed, want: ctrlCCancel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, ctrlCFor(tc.status, tc.again))
		})
	}
}

// TestCtrlCInterruptsThenEnds: the first Ctrl-C in a turn interrupts it
// and says so; a second within ctrlCAgain is left to the default (the
// run's end); one later interrupts again; at the idle prompt one
// finishes the run.
func TestCtrlCInterruptsThenEnds(t *testing.T) {
	t.Parallel()
	ctl := live.NewControl()
	ctl.SetStatus(state.Active)
	now := time.Unix(1000, 0)
	var out strings.Builder
	c := &ctrlC{ctl: ctl, out: &out, now: func() time.Time { return now }}
	require.True(t, c.handle())
	assert.Equal(t, "interrupted: the turn stops; Ctrl-C again within 3s ends the run\n", out.String())
	now = now.Add(2 * time.Second)
	assert.False(t, c.handle(), "a second Ctrl-C within 3s ends the run")
	now = now.Add(2 * time.Second)
	assert.True(t, c.handle(), "a Ctrl-C 4s after the first interrupts again")
	ctl.SetStatus(state.Idle)
	now = now.Add(time.Minute)
	assert.True(t, c.handle())
	assert.True(t, ctl.Finishing(), "Ctrl-C at the idle prompt finishes the run")
	ctl.SetStatus(state.Completed)
	assert.False(t, c.handle(), "once the run has ended, Ctrl-C is the default's")
}
