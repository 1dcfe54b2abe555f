package console

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEndingOf(t *testing.T) {
	t.Parallel()
	landed := json.RawMessage(`{"landed":true}`)
	for _, c := range []struct {
		run       Run
		key, word string
		tone      string
	}{
		{Run{Status: "completed", Verdict: "held"}, EndingHeld, "completed, contract held", "ok"},
		{Run{Status: "completed", Verdict: "none"}, EndingCompleted, "completed", "ok"},
		{Run{Status: "done"}, EndingCompleted, "completed", "ok"},
		{Run{Status: "budget_exhausted"}, EndingExhausted, "budget exhausted", "warn"},
		{Run{Status: "cancelled", Report: landed}, EndingStopped, "stopped, work landed", "plain"},
		{Run{Status: "cancelled"}, EndingStopped, "cancelled", "plain"},
		{Run{Status: "partial"}, EndingPartial, "partial", "warn"},
		{Run{Status: StatusLost}, EndingLost, "lost", "warn"},
		{Run{Status: "failed"}, EndingFailed, "failed", "bad"},
		{Run{Status: "pending"}, EndingLive, "queued", "busy"},
		{Run{Status: "starting"}, EndingLive, "starting", "busy"},
		{Run{Status: "active"}, EndingLive, "working", "busy"},
		{Run{Status: "idle"}, EndingLive, "idle", "busy"},
		{Run{Status: "queued"}, EndingLive, "queued", "busy"},
		{Run{Status: "running"}, EndingLive, "working", "busy"},
	} {
		e := EndingOf(&c.run)
		assert.Equal(t, Ending{c.key, c.word, c.tone}, e, "status %q verdict %q", c.run.Status, c.run.Verdict)
		assert.Contains(t, Endings, e.Key)
	}
}

// TestTimelineTurnsBeginBeforeTheirEvents: a turn event is written when
// the turn's tool has run, so the timeline puts the turn its duration
// before it; a turn without an event follows the one before.
func TestTimelineTurnsBeginBeforeTheirEvents(t *testing.T) {
	t.Parallel()
	var d reportDetail
	require.NoError(t, json.Unmarshal([]byte(`{"started_at":"2026-12-01T08:00:00Z","steps":[`+
		`{"turn":1,"tool":"read_file","duration_ns":10000000000},`+
		`{"turn":2,"tool":"edit_file","duration_ns":30000000000},`+
		`{"turn":3,"tool":"done","duration_ns":5000000000}]}`), &d))
	ended := map[int]time.Time{2: time.Date(2026, 12, 1, 8, 1, 0, 0, time.UTC)}
	steps := timeline(&d, ended)
	require.Len(t, steps, 3)
	assert.Equal(t, "08:00:00 UTC", steps[0].At)
	assert.Equal(t, "08:00:30 UTC", steps[1].At, "its event at 08:01:00 less its 30s")
	assert.Equal(t, "08:00:40 UTC", steps[2].At, "no event: after the turns before it")
}
