package state

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOldStatusNamesLoad: records written before the run's life had idle
// and completed still load.
func TestOldStatusNamesLoad(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ old, now Status }{{"running", Active}, {"done", Completed}, {"partial", Partial}} {
		var r struct{ Status Status }
		require.NoError(t, json.Unmarshal([]byte(`{"Status":"`+string(tt.old)+`"}`), &r))
		assert.Equal(t, tt.now, r.Status, tt.old)
	}
}

func TestWordIsOneForEachLiveState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		s    Status
		want string
	}{
		{name: "pending", s: Pending, want: "queued"},
		{name: "starting", s: Starting, want: "starting"},
		{name: "active", s: Active, want: "working"},
		{name: "idle", s: Idle, want: "idle"},
		{name: "ended", s: BudgetExhausted, want: "budget_exhausted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.Word(); got != tc.want {
				t.Errorf("%s.Word() = %q, want %q", tc.s, got, tc.want)
			}
		})
	}
}
