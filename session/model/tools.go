package model

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// RoleTool is the role of a message that answers a native tool call.
const RoleTool = "tool"

// ToolCall is one native tool call in an assistant message, as the
// OpenAI tools wire format carries it.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the call's arguments as the server sent them: a JSON
	// object, as a string.
	Arguments string `json:"arguments"`
}

// Tool is a function the model may call natively: an OpenAI function
// definition.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
}

func toolsFor(tools []Tool) []openai.Tool {
	out := make([]openai.Tool, len(tools))
	for i, t := range tools {
		out[i] = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		}}
	}
	return out
}

func callsToWire(calls []ToolCall) []openai.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]openai.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
	}
	return out
}

func callsFromWire(calls []openai.ToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		out[i] = ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments}
	}
	return out
}
