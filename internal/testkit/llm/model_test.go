package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"

	openai "github.com/sashabaranov/go-openai"
)

// openaiClient is the real go-openai client pointed at s.
func openaiClient(s *ModelServer, token string) *openai.Client {
	cfg := openai.DefaultConfig(token)
	cfg.BaseURL = s.URL + "/v1"
	return openai.NewClientWithConfig(cfg)
}

func chatRequest(prompt string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model: "qwen2.5-coder",
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "You are a coding agent."},
			{Role: openai.ChatMessageRoleUser, Content: prompt},
		},
	}
}

func TestModelServerChatCompletion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		reply     Reply
		wantUsage openai.Usage
	}{
		{
			name:  "estimated usage",
			reply: ContentReply("tool: read_file\npath: go.mod"),
			// prompt: ceil(23/4)=6 + ceil(11/4)=3; completion: ceil(28/4)=7
			wantUsage: openai.Usage{PromptTokens: 9, CompletionTokens: 7, TotalTokens: 16},
		},
		{
			name:      "scripted usage",
			reply:     ContentReply("tool: done").WithUsage(120, 30),
			wantUsage: openai.Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150},
		},
		{
			name:      "empty content",
			reply:     Reply{},
			wantUsage: openai.Usage{PromptTokens: 9, CompletionTokens: 0, TotalTokens: 9},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewModelServer(t, tt.reply)
			req := chatRequest("read go.mod")
			resp, err := openaiClient(s, "").CreateChatCompletion(t.Context(), req)
			if err != nil {
				t.Fatalf("CreateChatCompletion: %v", err)
			}
			if resp.ID == "" || resp.Object != "chat.completion" || resp.Created == 0 || resp.Model != req.Model {
				t.Errorf("response header fields = id %q object %q created %d model %q", resp.ID, resp.Object, resp.Created, resp.Model)
			}
			if len(resp.Choices) != 1 {
				t.Fatalf("got %d choices, want 1", len(resp.Choices))
			}
			c := resp.Choices[0]
			if c.Message.Role != openai.ChatMessageRoleAssistant || c.Message.Content != tt.reply.Content || c.FinishReason != openai.FinishReasonStop {
				t.Errorf("choice = role %q content %q finish %q, want assistant %q stop", c.Message.Role, c.Message.Content, c.FinishReason, tt.reply.Content)
			}
			got := openai.Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens, TotalTokens: resp.Usage.TotalTokens}
			if got != tt.wantUsage {
				t.Errorf("usage = %+v, want %+v", got, tt.wantUsage)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("recorded %d requests, want 1", len(reqs))
			}
			if reqs[0].Model != req.Model || len(reqs[0].Messages) != 2 || reqs[0].Messages[1].Content != "read go.mod" {
				t.Errorf("recorded request = %+v", reqs[0])
			}
		})
	}
}

func TestModelServerErrorReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		reply       Reply
		wantStatus  int
		wantMessage string
		wantType    string
	}{
		{name: "bad request", reply: ErrorReply(400, "context too long"), wantStatus: 400, wantMessage: "context too long", wantType: "invalid_request_error"},
		{name: "rate limited", reply: ErrorReply(429, ""), wantStatus: 429, wantMessage: "Too Many Requests", wantType: "rate_limit_error"},
		{name: "server error", reply: ErrorReply(500, "boom"), wantStatus: 500, wantMessage: "boom", wantType: "server_error"},
		{name: "loading model", reply: ErrorReply(503, "Loading model"), wantStatus: 503, wantMessage: "Loading model", wantType: "unavailable_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewModelServer(t, tt.reply)
			_, err := openaiClient(s, "").CreateChatCompletion(t.Context(), chatRequest("hi"))
			var apiErr *openai.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v (%T), want *openai.APIError", err, err)
			}
			if apiErr.HTTPStatusCode != tt.wantStatus || apiErr.Message != tt.wantMessage || apiErr.Type != tt.wantType {
				t.Errorf("APIError = status %d message %q type %q, want %d %q %q", apiErr.HTTPStatusCode, apiErr.Message, apiErr.Type, tt.wantStatus, tt.wantMessage, tt.wantType)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("recorded %d requests, want 1", n)
			}
		})
	}
}

func TestModelServerRawReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply Reply
		check func(t *testing.T, err error)
	}{
		{
			name:  "malformed JSON",
			reply: RawReply(0, `{"choices": [`),
			check: func(t *testing.T, err error) {
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("error = %v, want unexpected EOF from the decoder", err)
				}
			},
		},
		{
			name:  "not JSON",
			reply: RawReply(0, "<html>hello</html>"),
			check: func(t *testing.T, err error) {
				var syntax *json.SyntaxError
				if !errors.As(err, &syntax) {
					t.Errorf("error = %v (%T), want *json.SyntaxError", err, err)
				}
			},
		},
		{
			name:  "HTML error page",
			reply: RawReply(502, "<html>Bad Gateway</html>"),
			check: func(t *testing.T, err error) {
				var reqErr *openai.RequestError
				if !errors.As(err, &reqErr) || reqErr.HTTPStatusCode != 502 || string(reqErr.Body) != "<html>Bad Gateway</html>" {
					t.Errorf("error = %#v, want *openai.RequestError with status 502 and the raw body", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewModelServer(t, tt.reply)
			_, err := openaiClient(s, "").CreateChatCompletion(t.Context(), chatRequest("hi"))
			if err == nil {
				t.Fatal("CreateChatCompletion succeeded on a malformed answer")
			}
			tt.check(t, err)
		})
	}
}

func TestModelServerReplyHeader(t *testing.T) {
	t.Parallel()
	s := NewModelServer(t, ErrorReply(429, "slow down").WithHeader("Retry-After", "7"))
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" {
		t.Errorf("got status %d Retry-After %q, want 429 and 7", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestModelServerDelay(t *testing.T) {
	t.Parallel()
	t.Run("waits before answering", func(t *testing.T) {
		t.Parallel()
		const delay = 150 * time.Millisecond
		s := NewModelServer(t, ContentReply("late").After(delay))
		start := time.Now()
		resp, err := openaiClient(s, "").CreateChatCompletion(t.Context(), chatRequest("hi"))
		if err != nil {
			t.Fatalf("CreateChatCompletion: %v", err)
		}
		if elapsed := time.Since(start); elapsed < delay {
			t.Errorf("answered after %v, want at least %v", elapsed, delay)
		}
		if resp.Choices[0].Message.Content != "late" {
			t.Errorf("content = %q, want late", resp.Choices[0].Message.Content)
		}
	})
	t.Run("client going away ends the wait", func(t *testing.T) {
		t.Parallel()
		s := NewModelServer(t, ContentReply("never").After(time.Hour))
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		_, err := openaiClient(s, "").CreateChatCompletion(ctx, chatRequest("hi"))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want context.DeadlineExceeded", err)
		}
		// The handler must notice the client is gone without the server
		// closing: poll the in-flight count.
		deadline := time.Now().Add(testkit.Patience)
		for s.inFlight() > 0 {
			if time.Now().After(deadline) {
				t.Fatal("handler still waiting out its delay after the client went away")
			}
			time.Sleep(5 * time.Millisecond) // polling a test observation, not a wait in code under test
		}
	})
}

func TestModelServerExhausted(t *testing.T) {
	t.Parallel()
	s := NewModelServer(t, ContentReply("only"))
	s.AllowExhaustion()
	client := openaiClient(s, "")
	if _, err := client.CreateChatCompletion(t.Context(), chatRequest("one")); err != nil {
		t.Fatalf("first request: %v", err)
	}
	_, err := client.CreateChatCompletion(t.Context(), chatRequest("two"))
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 500 || apiErr.Message != "script exhausted after 1 replies" {
		t.Fatalf("second request error = %v, want 500 script exhausted after 1 replies", err)
	}
	if s.Exhausted() != 1 || s.Remaining() != 0 || len(s.Requests()) != 2 {
		t.Errorf("exhausted %d remaining %d requests %d, want 1 0 2", s.Exhausted(), s.Remaining(), len(s.Requests()))
	}
}

// cleanupTB collects cleanups and errors so a test can see what a server
// built on it does when its test ends.
type cleanupTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errs     []string
}

func (c *cleanupTB) Helper()          {}
func (c *cleanupTB) Cleanup(f func()) { c.mu.Lock(); c.cleanups = append(c.cleanups, f); c.mu.Unlock() }
func (c *cleanupTB) Errorf(f string, a ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, fmt.Sprintf(f, a...))
}

func (c *cleanupTB) runCleanups() {
	for _, f := range slices.Backward(c.cleanups) {
		f()
	}
}

func TestModelServerExhaustionFailsTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		allow    bool
		requests int
		wantErr  bool
	}{
		{name: "script used exactly", requests: 1},
		{name: "request past the end", requests: 2, wantErr: true},
		{name: "request past the end allowed", requests: 2, allow: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := &cleanupTB{TB: t}
			s := NewModelServer(tb, ContentReply("only"))
			if tt.allow {
				s.AllowExhaustion()
			}
			for i := range tt.requests {
				_, _ = openaiClient(s, "").CreateChatCompletion(t.Context(), chatRequest(fmt.Sprint(i)))
			}
			tb.runCleanups()
			if gotErr := len(tb.errs) > 0; gotErr != tt.wantErr {
				t.Errorf("cleanup errors = %q, want an error: %v", tb.errs, tt.wantErr)
			}
		})
	}
}

func TestModelServerStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
	}{
		{name: "short", content: "tool: done"},
		{name: "many chunks with unicode", content: "tool: write_file\npath: README.md\ncontent: héllo wörld — ünïcode ✓\n"},
		{name: "empty", content: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewModelServer(t, ContentReply(tt.content).WithUsage(40, 9))
			req := chatRequest("go")
			req.Stream = true
			req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
			stream, err := openaiClient(s, "").CreateChatCompletionStream(t.Context(), req)
			if err != nil {
				t.Fatalf("CreateChatCompletionStream: %v", err)
			}
			defer stream.Close()
			var content strings.Builder
			var usage *openai.Usage
			var finish openai.FinishReason
			for {
				chunk, err := stream.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("Recv: %v", err)
				}
				for _, c := range chunk.Choices {
					content.WriteString(c.Delta.Content)
					if c.FinishReason != "" {
						finish = c.FinishReason
					}
				}
				if chunk.Usage != nil {
					usage = chunk.Usage
				}
			}
			if content.String() != tt.content {
				t.Errorf("streamed content = %q, want %q", content.String(), tt.content)
			}
			if finish != openai.FinishReasonStop {
				t.Errorf("finish reason = %q, want stop", finish)
			}
			if usage == nil || usage.PromptTokens != 40 || usage.CompletionTokens != 9 || usage.TotalTokens != 49 {
				t.Errorf("usage = %+v, want 40/9/49", usage)
			}
			if reqs := s.Requests(); len(reqs) != 1 || !reqs[0].Stream {
				t.Errorf("recorded %+v, want one streaming request", reqs)
			}
		})
	}
}

func TestModelServerListModels(t *testing.T) {
	t.Parallel()
	s := NewModelServer(t)
	list, err := openaiClient(s, "").ListModels(t.Context())
	if err != nil {
		t.Fatalf("ListModels: %v", err)
	}
	if len(list.Models) != 1 || list.Models[0].ID != DefaultModel || list.Models[0].Object != "model" {
		t.Errorf("models = %+v, want one %q", list.Models, DefaultModel)
	}
	if n := s.ModelListRequests(); n != 1 {
		t.Errorf("ModelListRequests = %d, want 1", n)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("listing models recorded %d chat requests", n)
	}
}

func TestModelServerRecordsHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		token    string
		wantAuth string
	}{
		{name: "api key", token: "sk-test", wantAuth: "Bearer sk-test"},
		{name: "no api key", token: "", wantAuth: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewModelServer(t, ContentReply("ok"))
			if _, err := openaiClient(s, tt.token).CreateChatCompletion(t.Context(), chatRequest("hi")); err != nil {
				t.Fatalf("CreateChatCompletion: %v", err)
			}
			calls := s.Calls()
			if len(calls) != 1 {
				t.Fatalf("recorded %d calls, want 1", len(calls))
			}
			auth, present := calls[0].Header["Authorization"]
			if tt.wantAuth == "" && present {
				t.Errorf("Authorization header sent: %q", auth)
			}
			if got := calls[0].Header.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tt.wantAuth)
			}
			if !json.Valid(calls[0].Body) || !strings.Contains(string(calls[0].Body), `"messages"`) {
				t.Errorf("recorded body = %s", calls[0].Body)
			}
		})
	}
}

func TestModelServerUnknownEndpoint(t *testing.T) {
	t.Parallel()
	s := NewModelServer(t)
	resp, err := http.Get(s.URL + "/v1/chat/completions")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct{ Message string } `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("decode error body: %v", err)
	}
	if resp.StatusCode != 404 || !strings.Contains(body.Error.Message, "GET /v1/chat/completions") {
		t.Errorf("got %d %q, want 404 naming the endpoint", resp.StatusCode, body.Error.Message)
	}
}

func TestModelServerConcurrentRequests(t *testing.T) {
	t.Parallel()
	const n = 20
	var replies []Reply
	var want []string
	for i := range n {
		replies = append(replies, ContentReply(fmt.Sprintf("reply %02d", i)))
		want = append(want, fmt.Sprintf("reply %02d", i))
	}
	s := NewModelServer(t, replies...)
	client := openaiClient(s, "")
	var (
		mu  sync.Mutex
		got []string
		wg  sync.WaitGroup
	)
	for i := range n {
		wg.Go(func() {
			resp, err := client.CreateChatCompletion(t.Context(), chatRequest(fmt.Sprint(i)))
			if err != nil {
				t.Errorf("request %d: %v", i, err)
				return
			}
			mu.Lock()
			got = append(got, resp.Choices[0].Message.Content)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("served %q, want each scripted reply once: %q", got, want)
	}
	if len(s.Requests()) != n {
		t.Errorf("recorded %d requests, want %d", len(s.Requests()), n)
	}
}

func TestModelServerToolCalls(t *testing.T) {
	t.Parallel()
	srv := NewModelServer(t,
		ToolCallReply("read_file", `{"path":"go.mod"}`),
		Reply{Content: "thinking aloud", ToolCalls: []ToolCall{{ID: "mine", Name: "git_diff", Arguments: "{}"}, {Name: "done", Arguments: `{"summary":"x"}`}}},
	)
	req := chatRequest("read go.mod")
	req.Tools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
	}}}
	c := openaiClient(srv, "")
	resp, err := c.CreateChatCompletion(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Choices[0]
	if got.FinishReason != openai.FinishReasonToolCalls || len(got.Message.ToolCalls) != 1 {
		t.Fatalf("got %+v", got)
	}
	tc := got.Message.ToolCalls[0]
	if tc.ID != "call_1" || tc.Type != openai.ToolTypeFunction || tc.Function.Name != "read_file" || tc.Function.Arguments != `{"path":"go.mod"}` {
		t.Fatalf("tool call %+v", tc)
	}
	// The wire body: content is null beside the tool calls.
	raw, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Body.Close()
	var body struct {
		Choices []struct {
			Message      map[string]json.RawMessage `json:"message"`
			FinishReason string                     `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(raw.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	msg := body.Choices[0].Message
	if string(msg["content"]) != `"thinking aloud"` || body.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("message %s", msg)
	}
	var calls []map[string]any
	if err := json.Unmarshal(msg["tool_calls"], &calls); err != nil || len(calls) != 2 {
		t.Fatalf("tool_calls %s: %v", msg["tool_calls"], err)
	}
	if calls[0]["id"] != "mine" || calls[1]["id"] != "call_2" {
		t.Fatalf("ids %v %v", calls[0]["id"], calls[1]["id"])
	}
	if got := srv.Requests()[0].Tools; len(got) != 1 || got[0].Function.Name != "read_file" {
		t.Fatalf("recorded tools %+v", got)
	}
}

func TestModelServerToolCallStream(t *testing.T) {
	t.Parallel()
	srv := NewModelServer(t, ToolCallReply("git_diff", "{}"))
	req := chatRequest("diff")
	req.Stream = true
	stream, err := openaiClient(srv, "").CreateChatCompletionStream(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var calls []openai.ToolCall
	var finish openai.FinishReason
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(chunk.Choices) > 0 {
			calls = append(calls, chunk.Choices[0].Delta.ToolCalls...)
			if chunk.Choices[0].FinishReason != "" {
				finish = chunk.Choices[0].FinishReason
			}
		}
	}
	if len(calls) != 1 || calls[0].Function.Name != "git_diff" || calls[0].Index == nil || *calls[0].Index != 0 || finish != openai.FinishReasonToolCalls {
		t.Fatalf("calls %+v finish %q", calls, finish)
	}
}

func TestModelServerRefuseTools(t *testing.T) {
	t.Parallel()
	srv := NewModelServer(t, ContentReply("tool: done"))
	srv.RefuseTools()
	req := chatRequest("x")
	req.Tools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "ping"}}}
	c := openaiClient(srv, "")
	_, err := c.CreateChatCompletion(t.Context(), req)
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusBadRequest || !strings.Contains(apiErr.Message, "tools are not supported") {
		t.Fatalf("err = %v", err)
	}
	if srv.Remaining() != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("remaining %d, requests %d: the refusal must use no reply and be recorded", srv.Remaining(), len(srv.Requests()))
	}
	resp, err := c.CreateChatCompletion(t.Context(), chatRequest("y"))
	if err != nil || resp.Choices[0].Message.Content != "tool: done" {
		t.Fatalf("without tools: %v %+v", err, resp)
	}
}
