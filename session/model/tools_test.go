package model_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompleteToolsRoundTrip(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t,
		llm.ToolCallReply("read_file", `{"path":"go.mod"}`),
		llm.ContentReply("tool: done"),
	)
	c := newClient(srv, nil)
	tools := []model.Tool{{Name: "read_file", Description: "read a file",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	reply, err := c.CompleteTools(t.Context(), conversation(), tools)
	require.NoError(t, err, "a reply with only tool calls is not empty")
	assert.Equal(t, []model.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"go.mod"}`}}, reply.ToolCalls)
	assert.Equal(t, "tool_calls", reply.FinishReason)
	assert.Empty(t, reply.Content)

	// The call and its answer go back on the wire as OpenAI wants them.
	msgs := append(conversation(),
		model.Message{Role: model.RoleAssistant, ToolCalls: reply.ToolCalls},
		model.Message{Role: model.RoleTool, ToolCallID: "call_1", Content: "module x"},
	)
	_, err = c.CompleteTools(t.Context(), msgs, tools)
	require.NoError(t, err)
	calls := srv.Calls()
	require.Len(t, calls, 2)
	var first struct {
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(calls[0].Body, &first))
	require.Len(t, first.Tools, 1)
	assert.Equal(t, "function", first.Tools[0].Type)
	assert.Equal(t, "read_file", first.Tools[0].Function.Name)
	assert.JSONEq(t, string(tools[0].Parameters), string(first.Tools[0].Function.Parameters))
	var second struct {
		Messages []map[string]any `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(calls[1].Body, &second))
	n := len(second.Messages)
	assert.Equal(t, "assistant", second.Messages[n-2]["role"])
	assert.Equal(t, []any{map[string]any{"id": "call_1", "type": "function",
		"function": map[string]any{"name": "read_file", "arguments": `{"path":"go.mod"}`}}}, second.Messages[n-2]["tool_calls"])
	assert.Equal(t, map[string]any{"role": "tool", "content": "module x", "tool_call_id": "call_1"}, second.Messages[n-1])
}

func TestCompleteWithoutToolsSendsNone(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t, llm.ContentReply("tool: done"))
	_, err := newClient(srv, nil).Complete(t.Context(), conversation())
	require.NoError(t, err)
	var body map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(srv.Calls()[0].Body, &body))
	assert.NotContains(t, body, "tools")
}

func TestSupportsTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   llm.Reply
		refuse  bool
		want    bool
		wantErr bool
	}{
		{name: "calls the tool", reply: llm.ToolCallReply("ping", "{}"), want: true},
		{name: "ignores the tools", reply: llm.ContentReply("pong")},
		{name: "refuses tools", refuse: true},
		{name: "rejects the request", reply: llm.ErrorReply(http.StatusBadRequest, "tools param requires --jinja flag")},
		{name: "server error", reply: llm.ErrorReply(http.StatusInternalServerError, "boom"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var replies []llm.Reply
			if !tt.refuse {
				replies = append(replies, tt.reply)
			}
			srv := llm.NewModelServer(t, replies...)
			if tt.refuse {
				srv.RefuseTools()
			}
			ok, err := newClient(srv, nil).SupportsTools(t.Context())
			assert.Equal(t, tt.want, ok)
			if tt.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			reqs := srv.Requests()
			require.Len(t, reqs, 1, "one request")
			require.Len(t, reqs[0].Tools, 1)
			assert.Equal(t, "ping", reqs[0].Tools[0].Function.Name)
			assert.Positive(t, reqs[0].MaxTokens, "the probe bounds its generation")
		})
	}
}

func TestSupportsToolsUnreachable(t *testing.T) {
	t.Parallel()
	c := model.New(model.Config{BaseURL: "http://" + deadAddr(t)})
	ok, err := c.SupportsTools(t.Context())
	assert.False(t, ok)
	require.Error(t, err)
}
