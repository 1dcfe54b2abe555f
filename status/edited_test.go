package status

import (
	"strings"
	"testing"
)

func TestEditedNotice(t *testing.T) {
	t.Parallel()
	body := EditedNotice("alice", 42, "bob")
	if !strings.HasPrefix(body, "core: @alice, your comment was edited after it was posted, so core does not read it as a message from @bob") {
		t.Errorf("notice = %q", body)
	}
	tests := []struct {
		name string
		body string
		id   int64
		want bool
	}{
		{name: "its own notice", body: body, id: 42, want: true},
		{name: "another comment's", body: body, id: 4, want: false},
		{name: "a longer id with the same start", body: EditedNotice("alice", 421, "bob"), id: 42, want: false},
		{name: "no marker", body: "core: @alice, your comment was edited", id: 42, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := HasEditedNotice(tt.body, tt.id); got != tt.want {
				t.Errorf("HasEditedNotice = %v, want %v", got, tt.want)
			}
		})
	}
}
