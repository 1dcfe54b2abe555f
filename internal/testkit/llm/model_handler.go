package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// maxRequestBody bounds what the server reads of a request body.
const maxRequestBody = 32 << 20

// streamChunkRunes is how many runes of content each SSE chunk carries.
const streamChunkRunes = 16

// The wire shapes below follow OpenAI's chat completions API reference
// rather than go-openai's types, so the client is checked against the
// protocol and not against itself.

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is null in a message that only calls tools, as OpenAI sends it.
	Content   *string        `json:"content"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

type wireFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireToolCall struct {
	Index    *int             `json:"index,omitempty"` // streamed deltas only
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function wireFunctionCall `json:"function"`
}

type wireChoice struct {
	Index        int         `json:"index"`
	Message      wireMessage `json:"message"`
	FinishReason string      `json:"finish_reason"`
}

type wireCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   wireUsage    `json:"usage"`
}

type wireDelta struct {
	Role      string         `json:"role,omitempty"`
	Content   string         `json:"content,omitempty"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

type wireChunkChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireChunk struct {
	ID      string            `json:"id"`
	Object  string            `json:"object"`
	Created int64             `json:"created"`
	Model   string            `json:"model"`
	Choices []wireChunkChoice `json:"choices"`
	Usage   *wireUsage        `json:"usage,omitempty"`
}

type wireModel struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	OwnedBy string       `json:"owned_by"`
	Pricing *wirePricing `json:"pricing,omitempty"`
}

// wirePricing is OpenRouter's price of a model: dollars per token, as
// decimal strings.
type wirePricing struct {
	Prompt     string `json:"prompt"`
	Completion string `json:"completion"`
}

type wireModelList struct {
	Object string      `json:"object"`
	Data   []wireModel `json:"data"`
}

type wireError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func (s *ModelServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown endpoint %s %s", r.Method, r.URL.Path))
	})
	return mux
}

func (s *ModelServer) serveModels(w http.ResponseWriter, _ *http.Request) {
	s.countModelList()
	s.mu.Lock()
	pricing := s.pricing
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, wireModelList{
		Object: "list",
		Data: []wireModel{{
			ID: DefaultModel, Object: "model", Created: time.Now().Unix(), OwnedBy: "testkit", Pricing: pricing,
		}},
	})
}

func (s *ModelServer) serveChat(w http.ResponseWriter, r *http.Request) {
	s.setActive(1)
	defer s.setActive(-1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("read request body: %v", err))
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("request body is not a chat completion request: %v", err))
		return
	}
	call := Call{Request: req, Header: r.Header.Clone(), Body: body}
	if len(req.Tools) > 0 && s.refusing() {
		s.record(call)
		writeError(w, http.StatusBadRequest, "tools are not supported by this server")
		return
	}
	reply, scripted, ok := s.take(call)
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("script exhausted after %d replies", scripted))
		return
	}
	if reply.Delay > 0 {
		timer := time.NewTimer(reply.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
	if reply.Gate != nil {
		select {
		case <-reply.Gate:
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	switch {
	case reply.Raw != nil:
		status := reply.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write(reply.Raw)
	case reply.Status != 0:
		writeError(w, reply.Status, reply.Error)
	case req.Stream:
		s.writeStream(w, req, reply, s.toolCalls(reply))
	default:
		msg := wireMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: s.toolCalls(reply)}
		if reply.Content != "" || len(msg.ToolCalls) == 0 {
			msg.Content = &reply.Content
		}
		writeJSON(w, http.StatusOK, wireCompletion{
			ID:      completionID(),
			Object:  "chat.completion",
			Created: time.Now().Unix(),
			Model:   modelName(req),
			Choices: []wireChoice{{Message: msg, FinishReason: finishReason(reply)}},
			Usage:   usageFor(req, reply),
		})
	}
}

// toolCalls renders a reply's tool calls.
func (s *ModelServer) toolCalls(reply Reply) []wireToolCall {
	var out []wireToolCall
	for _, c := range reply.ToolCalls {
		id := c.ID
		if id == "" {
			id = s.callID()
		}
		out = append(out, wireToolCall{ID: id, Type: "function", Function: wireFunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	return out
}

func finishReason(reply Reply) string {
	if len(reply.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// writeStream answers a "stream": true request as OpenAI does: SSE chunks
// carrying the role, then the content in pieces, then a chunk with the
// finish reason and the usage, then "data: [DONE]".
func (s *ModelServer) writeStream(w http.ResponseWriter, req openai.ChatCompletionRequest, reply Reply, calls []wireToolCall) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	id, created, model := completionID(), time.Now().Unix(), modelName(req)
	send := func(choice wireChunkChoice, usage *wireUsage) {
		data, err := json.Marshal(wireChunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: model,
			Choices: []wireChunkChoice{choice}, Usage: usage,
		})
		if err != nil {
			return // unreachable: plain structs always marshal
		}
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(wireChunkChoice{Delta: wireDelta{Role: openai.ChatMessageRoleAssistant}}, nil)
	for _, piece := range splitRunes(reply.Content, streamChunkRunes) {
		send(wireChunkChoice{Delta: wireDelta{Content: piece}}, nil)
	}
	for i := range calls {
		calls[i].Index = &i
		send(wireChunkChoice{Delta: wireDelta{ToolCalls: calls[i : i+1]}}, nil)
	}
	stop := finishReason(reply)
	usage := usageFor(req, reply)
	send(wireChunkChoice{FinishReason: &stop}, &usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func splitRunes(s string, n int) []string {
	var pieces []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := min(n, len(runes))
		pieces = append(pieces, string(runes[:k]))
		runes = runes[k:]
	}
	return pieces
}

func completionID() string {
	return fmt.Sprintf("chatcmpl-testkit-%d", time.Now().UnixNano())
}

func modelName(req openai.ChatCompletionRequest) string {
	if req.Model != "" {
		return req.Model
	}
	return DefaultModel
}

// usageFor is the reply's scripted usage, or an estimate of ceil(len/4)
// tokens per prompt message and for the content.
func usageFor(req openai.ChatCompletionRequest, reply Reply) wireUsage {
	var u wireUsage
	if reply.Usage != nil {
		u.PromptTokens, u.CompletionTokens = reply.Usage.PromptTokens, reply.Usage.CompletionTokens
	} else {
		for _, m := range req.Messages {
			u.PromptTokens += estimateTokens(m.Content)
			for _, part := range m.MultiContent {
				u.PromptTokens += estimateTokens(part.Text)
			}
		}
		u.CompletionTokens = estimateTokens(reply.Content)
		for _, c := range reply.ToolCalls {
			u.CompletionTokens += estimateTokens(c.Name + c.Arguments)
		}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

func estimateTokens(s string) int { return (len(s) + 3) / 4 }

// writeError answers with an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, message string) {
	if message == "" {
		message = http.StatusText(status)
	}
	errType, code := "server_error", ""
	switch {
	case status == http.StatusTooManyRequests:
		errType, code = "rate_limit_error", "rate_limit_exceeded"
	case status == http.StatusUnauthorized:
		errType, code = "authentication_error", "invalid_api_key"
	case status == http.StatusNotFound:
		errType = "not_found_error"
	case status < 500:
		errType = "invalid_request_error"
	case status == http.StatusServiceUnavailable:
		errType = "unavailable_error"
	}
	e := wireError{Message: message, Type: errType}
	if code != "" {
		e.Code = &code
	}
	writeJSON(w, status, struct {
		Error wireError `json:"error"`
	}{e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, fmt.Sprintf("testkit: marshal response: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
