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
