package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session/model"
)

// TestBudgetNativeCalls: the arguments of native tool calls count toward
// the budget, and an elided call keeps its id and name (the tool message
// that answers it still names it) while its arguments go.
func TestBudgetNativeCalls(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 40000)
	entries := []Entry{
		{Role: model.RoleSystem, Content: "system prompt", Kind: KindSystem},
		{Role: model.RoleUser, Content: "the instruction", Kind: KindInstruction},
	}
	for turn := 1; turn <= 10; turn++ {
		id := fmt.Sprintf("call_%d", turn)
		entries = append(entries,
			Entry{Role: model.RoleAssistant, Kind: KindReply, Turn: turn,
				ToolCalls: []model.ToolCall{{ID: id, Name: "write_file", Arguments: `{"path":"a","content":"` + big + `"}`}}},
			Entry{Role: model.RoleTool, ToolCallID: id, Content: "Result of write_file:\nwrote a", Kind: KindObservation, Turn: turn})
	}
	msgs := budget(entries, 32768)
	require.Len(t, msgs, len(entries))
	total := 0
	for _, m := range msgs {
		total += estimateTokens(m.Content) + callTokens(m.ToolCalls)
	}
	assert.LessOrEqual(t, total, 32768)
	first := msgs[2]
	require.Len(t, first.ToolCalls, 1)
	assert.Equal(t, "call_1", first.ToolCalls[0].ID)
	assert.Equal(t, "write_file", first.ToolCalls[0].Name)
	assert.Equal(t, `{"elided":"arguments of 40025 characters, elided to save context"}`, first.ToolCalls[0].Arguments)
	assert.Equal(t, "call_1", msgs[3].ToolCallID)
	last := msgs[len(msgs)-2]
	assert.Contains(t, last.ToolCalls[0].Arguments, big, "the last turns are whole")
	assert.Contains(t, entries[2].ToolCalls[0].Arguments, big, "the transcript keeps everything")
}
