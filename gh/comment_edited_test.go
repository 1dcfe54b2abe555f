package gh

import (
	"testing"
	"time"
)

func TestCommentMessageAfter(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	tests := []struct {
		name             string
		created, updated time.Time
		edited, message  bool
	}{
		{name: "new, never edited", created: start.Add(time.Minute), updated: start.Add(time.Minute), message: true},
		{name: "posted the second the run started", created: start, updated: start, message: true},
		{name: "new, edited later", created: start.Add(time.Minute), updated: start.Add(2 * time.Minute), edited: true},
		{name: "written before the run, edited after", created: start.Add(-time.Hour), updated: start.Add(time.Minute), edited: true},
		{name: "written before the run", created: start.Add(-time.Hour), updated: start.Add(-time.Hour)},
		{name: "an updated_at before created_at is no edit", created: start.Add(time.Minute), updated: start, message: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Comment{CreatedAt: tt.created, UpdatedAt: tt.updated}
			if got := c.Edited(); got != tt.edited {
				t.Errorf("Edited() = %v, want %v", got, tt.edited)
			}
			if got := c.MessageAfter(start); got != tt.message {
				t.Errorf("MessageAfter() = %v, want %v", got, tt.message)
			}
		})
	}
}
