package session

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGoalOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, prompt, instruction, want string
	}{
		{name: "the prompt", prompt: "  fix the flaky\n  login test ", instruction: "fix the flaky\nlogin test", want: "fix the flaky login test"},
		{name: "an issue's first line", instruction: "Issue #3: Crash on start\n\nIt crashes.", want: "Issue #3: Crash on start"},
		{name: "a long prompt", prompt: strings.Repeat("word ", 100), want: strings.TrimSpace(strings.Repeat("word ", 40))[:goalLength-1] + "…"},
		{name: "nothing", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, goalOf(tt.prompt, tt.instruction))
		})
	}
}
