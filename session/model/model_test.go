package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit/llm"
	"github.com/coreagent/core/session/model"
)

// tinyBackoff keeps retry tests fast.
func tinyBackoff() model.Backoff {
	return model.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}
}

func conversation() []model.Message {
	return []model.Message{
		{Role: model.RoleSystem, Content: "You are a coding agent."},
		{Role: model.RoleUser, Content: "Fix the failing test."},
		{Role: model.RoleAssistant, Content: "tool: read_file\npath: go.mod"},
		{Role: model.RoleUser, Content: "module example.com/x"},
	}
}

func newClient(s *llm.ModelServer, edit func(*model.Config)) *model.Client {
	cfg := model.Config{BaseURL: s.URL, Model: "qwen2.5-coder-7b", Backoff: tinyBackoff()}
	if edit != nil {
		edit(&cfg)
	}
	return model.New(cfg)
}

// deadAddr returns a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("close listener: %v", err)
	}
	return addr
}

func asModelError(t *testing.T, err error) *model.Error {
	t.Helper()
	var me *model.Error
	if !errors.As(err, &me) {
		t.Fatalf("error = %v (%T), want *model.Error", err, err)
	}
	return me
}

func TestCompletePlainReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		suffix string
	}{
		{name: "base without /v1", suffix: ""},
		{name: "base with /v1", suffix: "/v1"},
		{name: "base with /v1/", suffix: "/v1/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := llm.NewModelServer(t, llm.ContentReply("tool: done\nsummary: fixed").WithUsage(120, 30))
			c := newClient(s, func(cfg *model.Config) { cfg.BaseURL = s.URL + tt.suffix })
			if c.Endpoint() != s.URL+"/v1" {
				t.Errorf("Endpoint = %q, want %q", c.Endpoint(), s.URL+"/v1")
			}
			reply, err := c.Complete(t.Context(), conversation())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			want := model.Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150}
			if reply.Content != "tool: done\nsummary: fixed" || reply.FinishReason != "stop" || reply.Usage != want || reply.UsageEstimated || reply.Attempts != 1 {
				t.Errorf("reply = %+v, want the scripted content, stop, usage %+v, 1 attempt", reply, want)
			}
			if reply.Model != "qwen2.5-coder-7b" || reply.Duration <= 0 {
				t.Errorf("reply model %q duration %v", reply.Model, reply.Duration)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests, want 1", len(reqs))
			}
			if reqs[0].Model != "qwen2.5-coder-7b" || reqs[0].Stream {
				t.Errorf("request model %q stream %v, want qwen2.5-coder-7b non-streaming", reqs[0].Model, reqs[0].Stream)
			}
			var got []model.Message
			for _, m := range reqs[0].Messages {
				got = append(got, model.Message{Role: m.Role, Content: m.Content})
			}
			if !reflect.DeepEqual(got, conversation()) {
				t.Errorf("sent messages %+v, want %+v", got, conversation())
			}
		})
	}
}

func TestCompleteEstimatesMissingUsage(t *testing.T) {
	t.Parallel()
	s := llm.NewModelServer(t, llm.RawReply(200,
		`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"tool: done"},"finish_reason":"stop"}]}`))
	reply, err := newClient(s, nil).Complete(t.Context(), conversation()[:2])
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	// ceil(23/4)=6 + ceil(21/4)=6 prompt; ceil(10/4)=3 completion.
	want := model.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}
	if !reply.UsageEstimated || reply.Usage != want {
		t.Errorf("usage %+v estimated %v, want %+v estimated", reply.Usage, reply.UsageEstimated, want)
	}
}

func TestCompleteRetriesTransientFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		replies        []llm.Reply
		attemptTimeout time.Duration
	}{
		{name: "503 twice", replies: []llm.Reply{llm.ErrorReply(503, "Loading model"), llm.ErrorReply(503, "Loading model")}},
		{name: "429", replies: []llm.Reply{llm.ErrorReply(429, "slow down")}},
		{name: "500", replies: []llm.Reply{llm.ErrorReply(500, "boom")}},
		{name: "502 from a proxy", replies: []llm.Reply{llm.RawReply(502, "<html>Bad Gateway</html>")}},
		{name: "truncated body", replies: []llm.Reply{llm.RawReply(200, `{"choices": [`)}},
		{name: "no choices", replies: []llm.Reply{llm.RawReply(200, `{"id":"x","object":"chat.completion","choices":[]}`)}},
		{name: "attempt timeout", replies: []llm.Reply{llm.ContentReply("late").After(time.Hour)}, attemptTimeout: 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := llm.NewModelServer(t, append(tt.replies, llm.ContentReply("tool: done"))...)
			c := newClient(s, func(cfg *model.Config) { cfg.AttemptTimeout = tt.attemptTimeout })
			reply, err := c.Complete(t.Context(), conversation())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			want := len(tt.replies) + 1
			if reply.Content != "tool: done" || reply.Attempts != want {
				t.Errorf("reply %q after %d attempts, want tool: done after %d", reply.Content, reply.Attempts, want)
			}
			if n := len(s.Requests()); n != want {
				t.Errorf("server got %d requests, want %d", n, want)
			}
		})
	}
}

func TestCompleteMaxAttempts(t *testing.T) {
	t.Parallel()
	t.Run("503 every time", func(t *testing.T) {
		t.Parallel()
		s := llm.NewModelServer(t, slices.Repeat([]llm.Reply{llm.ErrorReply(503, "Loading model")}, 3)...)
		_, err := newClient(s, func(cfg *model.Config) { cfg.MaxAttempts = 3 }).Complete(t.Context(), conversation())
		me := asModelError(t, err)
		if me.Kind != model.KindTransient || me.Status != 503 || me.Attempts != 3 {
			t.Errorf("error kind %v status %d attempts %d, want transient 503 3", me.Kind, me.Status, me.Attempts)
		}
		want := "model endpoint " + s.URL + "/v1: 503 Service Unavailable after 3 attempts: Loading model"
		if err.Error() != want {
			t.Errorf("error = %q\nwant    %q", err, want)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Error("an outage matches context.DeadlineExceeded")
		}
		if n := len(s.Requests()); n != 3 {
			t.Errorf("server got %d requests, want 3", n)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		addr := deadAddr(t)
		c := model.New(model.Config{BaseURL: "http://" + addr, Backoff: tinyBackoff(), MaxAttempts: 2})
		_, err := c.Complete(t.Context(), conversation())
		me := asModelError(t, err)
		if me.Kind != model.KindTransient || me.Attempts != 2 || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("error = %v (kind %v attempts %d), want transient after 2 attempts wrapping ECONNREFUSED", err, me.Kind, me.Attempts)
		}
		if !strings.Contains(err.Error(), "http://"+addr+"/v1: transient failure after 2 attempts: ") {
			t.Errorf("error = %q, want it to name the endpoint and the attempts", err)
		}
	})
	t.Run("attempt timeouts are not the caller's deadline", func(t *testing.T) {
		t.Parallel()
		s := llm.NewModelServer(t, llm.ContentReply("late").After(time.Hour))
		c := newClient(s, func(cfg *model.Config) { cfg.MaxAttempts, cfg.AttemptTimeout = 1, 50*time.Millisecond })
		_, err := c.Complete(t.Context(), conversation())
		me := asModelError(t, err)
		if me.Kind != model.KindTransient || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer in time") {
			t.Errorf("error = %v (kind %v), want transient, not matching context.DeadlineExceeded", err, me.Kind)
		}
	})
}

func TestCompleteHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	s := llm.NewModelServer(t,
		llm.ErrorReply(503, "Loading model").WithHeader("Retry-After", "1"),
		llm.ContentReply("tool: done"))
	start := time.Now()
	reply, err := newClient(s, nil).Complete(t.Context(), conversation())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if elapsed := time.Since(start); elapsed < time.Second {
		t.Errorf("retried after %v, before the server's Retry-After of 1s", elapsed)
	}
	if reply.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", reply.Attempts)
	}
}

func TestCompleteEmptyReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
	}{
		{name: "empty", content: ""},
		{name: "whitespace", content: " \n\t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := llm.NewModelServer(t, llm.ContentReply(tt.content).WithUsage(500, 0), llm.ContentReply("never served"))
			reply, err := newClient(s, nil).Complete(t.Context(), conversation())
			me := asModelError(t, err)
			if me.Kind != model.KindEmpty || !strings.Contains(err.Error(), "empty reply after 1 attempt: the model returned no content") {
				t.Errorf("error = %v (kind %v), want an empty reply", err, me.Kind)
			}
			if reply.Usage.PromptTokens != 500 || reply.Attempts != 1 {
				t.Errorf("reply = %+v, want its usage kept", reply)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("server got %d requests, want 1 (not retried)", n)
			}
		})
	}
}

func TestCompleteAuthorization(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		key      string
		wantAuth string
	}{
		{name: "key", key: "sk-local-1", wantAuth: "Bearer sk-local-1"},
		{name: "no key", key: ""},
		{name: "blank key", key: "  "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := llm.NewModelServer(t, llm.ContentReply("tool: done"))
			if _, err := newClient(s, func(cfg *model.Config) { cfg.APIKey = tt.key }).Complete(t.Context(), conversation()); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			h := s.Calls()[0].Header
			if _, sent := h["Authorization"]; sent != (tt.wantAuth != "") || h.Get("Authorization") != tt.wantAuth {
				t.Errorf("Authorization header %q (sent %v), want %q", h.Get("Authorization"), sent, tt.wantAuth)
			}
		})
	}
}

func TestCompleteTemperature(t *testing.T) {
	t.Parallel()
	zero, warm := float32(0), float32(0.7)
	tests := []struct {
		name        string
		temperature *float32
		wantSent    bool
		want        float64
	}{
		{name: "server default", temperature: nil},
		{name: "zero is sent", temperature: &zero, wantSent: true, want: 0},
		{name: "warm", temperature: &warm, wantSent: true, want: 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := llm.NewModelServer(t, llm.ContentReply("tool: done"))
			if _, err := newClient(s, func(cfg *model.Config) { cfg.Temperature = tt.temperature }).Complete(t.Context(), conversation()); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			var body map[string]any
			if err := json.Unmarshal(s.Calls()[0].Body, &body); err != nil {
				t.Fatalf("decode recorded body: %v", err)
			}
			got, sent := body["temperature"].(float64)
			if sent != tt.wantSent || (sent && (got < tt.want-1e-6 || got > tt.want+1e-6)) {
				t.Errorf("temperature in body = %v (sent %v), want %v (sent %v)", body["temperature"], sent, tt.want, tt.wantSent)
			}
		})
	}
}

func TestCompleteRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		baseURL string
		msgs    []model.Message
		want    string
	}{
		{name: "URL without scheme", baseURL: "127.0.0.1:8081", msgs: conversation(),
			want: `model endpoint 127.0.0.1:8081: request failed: model server URL must look like http://127.0.0.1:8081 or http://127.0.0.1:8081/v1, got "127.0.0.1:8081"`},
		{name: "no messages", baseURL: "http://127.0.0.1:1",
			want: "model endpoint http://127.0.0.1:1/v1: request failed: no messages to send"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := model.New(model.Config{BaseURL: tt.baseURL}).Complete(t.Context(), tt.msgs)
			me := asModelError(t, err)
			if me.Kind != model.KindPersistent || me.Attempts != 0 || err.Error() != tt.want {
				t.Errorf("error = %q (kind %v attempts %d)\nwant %q, persistent, 0 attempts", err, me.Kind, me.Attempts, tt.want)
			}
		})
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	s := llm.NewModelServer(t)
	got, err := newClient(s, nil).Models(t.Context())
	if err != nil {
		t.Fatalf("Models: %v", err)
	}
	if !slices.Equal(got, []string{llm.DefaultModel}) {
		t.Errorf("Models = %q, want [%q]", got, llm.DefaultModel)
	}
	if s.ModelListRequests() != 1 {
		t.Errorf("server got %d model list requests, want 1", s.ModelListRequests())
	}
}

func TestModelsUnreachable(t *testing.T) {
	t.Parallel()
	_, err := model.New(model.Config{BaseURL: "http://" + deadAddr(t)}).Models(t.Context())
	me := asModelError(t, err)
	if me.Kind != model.KindTransient || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error = %v (kind %v), want transient connection refused", err, me.Kind)
	}
}

func TestUsageAdd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		start, in model.Usage
		want      model.Usage
	}{
		{name: "from zero", in: model.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12},
			want: model.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
		{name: "accumulates", start: model.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12},
			in:   model.Usage{PromptTokens: 30, CompletionTokens: 5, TotalTokens: 35},
			want: model.Usage{PromptTokens: 40, CompletionTokens: 7, TotalTokens: 47}},
		{name: "adding zero", start: model.Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2},
			want: model.Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}},
		{name: "a sum saturates instead of wrapping", start: model.Usage{PromptTokens: math.MaxInt - 1, CompletionTokens: 1, TotalTokens: math.MaxInt},
			in:   model.Usage{PromptTokens: 5, CompletionTokens: math.MaxInt, TotalTokens: math.MaxInt},
			want: model.Usage{PromptTokens: math.MaxInt, CompletionTokens: math.MaxInt, TotalTokens: math.MaxInt}},
		{name: "a negative figure adds nothing", start: model.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12},
			in:   model.Usage{PromptTokens: -1 << 40, CompletionTokens: math.MinInt, TotalTokens: -5},
			want: model.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := tt.start
			u.Add(tt.in)
			if u != tt.want {
				t.Errorf("Add = %+v, want %+v", u, tt.want)
			}
		})
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "bare host", in: "http://127.0.0.1:8081", want: "http://127.0.0.1:8081/v1"},
		{name: "trailing slash", in: "http://127.0.0.1:8081/", want: "http://127.0.0.1:8081/v1"},
		{name: "with v1", in: "http://127.0.0.1:8081/v1", want: "http://127.0.0.1:8081/v1"},
		{name: "with v1 and slashes", in: " http://127.0.0.1:8081/v1// ", want: "http://127.0.0.1:8081/v1"},
		{name: "path prefix", in: "https://proxy.example/llm", want: "https://proxy.example/llm/v1"},
		{name: "path prefix with v1", in: "https://api.example/openai/v1", want: "https://api.example/openai/v1"},
		{name: "no scheme", in: "127.0.0.1:8081", wantErr: true},
		{name: "other scheme", in: "ftp://127.0.0.1", wantErr: true},
		{name: "empty", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := model.NormalizeBaseURL(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("NormalizeBaseURL(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestCompleteTellsOfRetries(t *testing.T) {
	t.Parallel()
	srv := llm.NewModelServer(t,
		llm.ErrorReply(500, "boom"),
		llm.ErrorReply(503, "busy"),
		llm.ContentReply("tool: done\nsummary: ok"),
	)
	var retries []model.Retry
	c := model.New(model.Config{BaseURL: srv.URL, Model: "coder", MaxAttempts: 6,
		Backoff: model.Backoff{Initial: time.Millisecond, Max: time.Millisecond},
		OnRetry: func(r model.Retry) { retries = append(retries, r) }})
	reply, err := c.Complete(t.Context(), []model.Message{{Role: model.RoleUser, Content: "hi"}})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if reply.Content != "tool: done\nsummary: ok" {
		t.Errorf("reply = %q", reply.Content)
	}
	if len(retries) != 2 {
		t.Fatalf("OnRetry called %d times, want 2: %v", len(retries), retries)
	}
	if got := retries[0].String(); !strings.HasPrefix(got, "500 Internal Server Error, retry 2/6 in ") {
		t.Errorf("first retry says %q", got)
	}
	if got := retries[1].String(); !strings.HasPrefix(got, "503 Service Unavailable, retry 3/6 in ") {
		t.Errorf("second retry says %q", got)
	}
}
