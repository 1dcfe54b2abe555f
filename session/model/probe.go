package model

import (
	"context"
	"encoding/json"
	"errors"
)

// probeParameters is the schema of the probe's one function: no arguments.
var probeParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// probeMaxTokens bounds the probe's generation: enough for one tool call.
const probeMaxTokens = 64

// SupportsTools asks the server, in one small request, whether it takes
// native tool calls: it offers one function, "ping", and asks the model to
// call it. The answer is true when the reply carries a tool call. A server
// that refuses the request with a 4xx status (llama-server without
// --jinja, vLLM without --enable-auto-tool-choice, an Ollama model without
// tool support) or ignores the tools answers false with a nil error; a
// server that cannot be reached answers false with the error.
func (c *Client) SupportsTools(ctx context.Context) (bool, error) {
	if c.configErr != nil {
		return false, &Error{Kind: KindPersistent, Endpoint: c.endpoint, Err: c.configErr}
	}
	req := c.request([]Message{{Role: RoleUser, Content: "Call the ping tool now, with no arguments."}})
	req.Tools = toolsFor([]Tool{{Name: "ping", Description: "Answers pong. Call it when asked to.", Parameters: probeParameters}})
	req.MaxTokens = probeMaxTokens
	resp, _, err := c.attempt(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return false, c.stopped(ctx, 1, nil)
		}
		f := classify(err)
		if f.status >= 400 && f.status < 500 {
			return false, nil
		}
		return false, &Error{Kind: f.kind, Endpoint: c.endpoint, Status: f.status, Attempts: 1, Err: f.err}
	}
	if len(resp.Choices) == 0 {
		return false, &Error{Kind: KindPersistent, Endpoint: c.endpoint, Attempts: 1, Err: errors.New("the tools probe got an answer with no choices")}
	}
	return len(resp.Choices[0].Message.ToolCalls) > 0, nil
}
