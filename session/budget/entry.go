package budget

import (
	"time"

	"github.com/coreagent/core/session/model"
)

// Entry kinds say what a transcript message is, so the context budget
// knows what it may elide.
const (
	KindSystem      = "system"      // the system prompt
	KindInstruction = "instruction" // a goal or a follow-up instruction from a person
	KindReply       = "reply"       // the model's reply
	KindObservation = "observation" // what a tool call returned
	KindCorrection  = "correction"  // why a reply was malformed
)

// Entry is one message of the transcript: one line of transcript.jsonl.
type Entry struct {
	Role    string    `json:"role"`
	Content string    `json:"content"`
	Kind    string    `json:"kind"`
	Turn    int       `json:"turn,omitempty"`
	Time    time.Time `json:"time"`
	// ToolCalls are a reply's native tool calls (id, name, arguments);
	// ToolCallID is the call a tool-role observation answers.
	ToolCalls  []model.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}
