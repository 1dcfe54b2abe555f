package session

import (
	"fmt"

	"github.com/coreagent/core/session/model"
)

// keepRecent is how many of the last messages the context budget never
// elides.
const keepRecent = 6

// estimateTokens is the budget's estimate of a message's size: about four
// characters a token, plus the message's own framing.
func estimateTokens(s string) int { return len(s)/4 + 4 }

// budget turns the transcript into the request, eliding the oldest tool
// observations (then the oldest replies) while the request would exceed
// limit estimated tokens. The system prompt, the instructions, the
// corrections and the last keepRecent messages are never elided; the
// transcript on disk keeps everything.
func budget(entries []Entry, limit int) []model.Message {
	msgs := make([]model.Message, len(entries))
	total := 0
	for i, e := range entries {
		msgs[i] = model.Message{Role: e.Role, Content: e.Content, ToolCalls: e.ToolCalls, ToolCallID: e.ToolCallID}
		total += estimateTokens(e.Content) + callTokens(e.ToolCalls)
	}
	for _, kind := range []string{KindObservation, KindReply} {
		for i := 0; i < len(entries)-keepRecent && total > limit; i++ {
			if entries[i].Kind != kind {
				continue
			}
			note := elisionNote(entries[i])
			total += estimateTokens(note) - estimateTokens(msgs[i].Content)
			msgs[i].Content = note
			if calls := msgs[i].ToolCalls; len(calls) > 0 {
				// The calls stay, for the tool messages that answer them;
				// their arguments go.
				total -= callTokens(calls)
				msgs[i].ToolCalls = elideCalls(calls)
				total += callTokens(msgs[i].ToolCalls)
			}
		}
	}
	return msgs
}

func elisionNote(e Entry) string {
	if e.Kind == KindReply {
		return fmt.Sprintf("[turn %d: an earlier reply of %d characters, elided to save context]", e.Turn, len(e.Content))
	}
	return fmt.Sprintf("[turn %d: an earlier tool result of %d characters, elided to save context; repeat the call if you need it]", e.Turn, len(e.Content))
}

// callTokens estimates the size of native tool calls.
func callTokens(calls []model.ToolCall) int {
	n := 0
	for _, c := range calls {
		n += estimateTokens(c.Name + c.Arguments)
	}
	return n
}

// elideCalls keeps the calls' ids and names, and replaces their arguments
// with a note.
func elideCalls(calls []model.ToolCall) []model.ToolCall {
	out := make([]model.ToolCall, len(calls))
	for i, c := range calls {
		c.Arguments = fmt.Sprintf(`{"elided":"arguments of %d characters, elided to save context"}`, len(c.Arguments))
		out[i] = c
	}
	return out
}
