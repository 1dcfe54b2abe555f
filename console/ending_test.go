package console

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
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
