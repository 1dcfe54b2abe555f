// Package llm is the model double of the tests: a scripted OpenAI-compatible
// chat server over real HTTP, so the code under test runs its real client
// against it.
//
// # Scripted model server
//
// [NewModelServer] (for Go tests) and [ServeModel] (for end-to-end scripts,
// which have no testing.TB) start an OpenAI-compatible chat server:
//
//   - GET  /v1/models lists [DefaultModel] in OpenAI's list shape (with a
//     price after [ModelServer.SetPrice]);
//   - POST /v1/chat/completions answers with the next scripted [Reply], as
//     OpenAI's non-streaming JSON, or as SSE chunks ending in "data: [DONE]"
//     when the request asks for "stream": true (usage rides on the final
//     chunk).
//
// A reply with tool calls ([Reply.ToolCalls]) answers with
// message.tool_calls (each with an id, type "function" and
// function.name/arguments, the arguments a JSON string), content null and
// finish_reason "tool_calls". The request's "tools" are recorded; after
// [ModelServer.RefuseTools] a request that offers tools gets HTTP 400, as
// from a server without tool support, and uses no reply.
//
// Replies are served in order, one per chat request. A request that finds
// the script used up gets HTTP 500 with the error message
// "script exhausted after N replies"; the server counts it (see
// [ModelServer.Exhausted]) and a server from NewModelServer fails its test at
// cleanup unless [ModelServer.AllowExhaustion] was called. Every chat request
// is recorded, decoded from the wire body, with its headers
// ([ModelServer.Requests], [ModelServer.Calls]).
//
// # Script format
//
// [ParseScript] reads replies from text, for testscript files. A script is a
// sequence of sections; each starts with a directive line beginning ">>> ".
// Reply directives:
//
//	>>> reply          content is every following line up to the next
//	                   ">>> " line, with one trailing newline removed
//	>>> tool_call NAME a native tool call (OpenAI's tools wire format) of
//	                   the function NAME; the following lines are its
//	                   arguments, a JSON object (none means {})
//	>>> status 503     an HTTP error (400-599) with an OpenAI error body; the
//	                   following lines, if any, are its message
//	>>> raw [STATUS]   the following lines are sent verbatim as the body,
//	                   with STATUS (default 200): malformed answers
//
// Modifiers apply to the next reply directive and take no lines of their
// own (blank lines after them are allowed):
//
//	>>> delay 2s                wait before answering (ends early when the
//	                            client goes away)
//	>>> usage 120 30            report these prompt and completion tokens
//	                            instead of the len/4 estimate
//	>>> header Retry-After: 1   add a response header
//
// Before the first directive only blank lines and lines starting with "#"
// (comments) may appear. Content lines cannot start with ">>>". CRLF line
// ends are read as LF. Errors name the offending line. For example:
//
//	# the model reads a file, then finishes
//	>>> delay 50ms
//	>>> reply
//	tool: read_file
//	path: go.mod
//	>>> header Retry-After: 1
//	>>> status 429
//	slow down
//	>>> usage 900 12
//	>>> reply
//	tool: done
package llm

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultModel is the model the scripted server lists and, when a request
// names none, reports in its answers.
const DefaultModel = "testkit-coder"

// Usage is the token count a reply reports.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Reply is one scripted answer to a chat completion request. The zero value
// answers with empty content.
type Reply struct {
	// Content is the assistant message of a normal (HTTP 200) answer.
	Content string
	// Status, when non-zero and Raw is nil, answers with this HTTP error
	// status and an OpenAI error body carrying Error.
	Status int
	// Error is the error body's message; empty means the status text.
	Error string
	// Raw, when non-nil, is sent verbatim as the body with Status (default
	// 200), for malformed answers. An empty non-nil Raw sends an empty body.
	Raw []byte
	// Delay is waited before answering; the wait ends early, without an
	// answer, when the client goes away or the server closes.
	Delay time.Duration
	// Gate, when non-nil, holds the answer until it is closed (after any
	// Delay), so a test can let the reply go when it has seen what it
	// waits for; like Delay, it ends early when the client goes away.
	Gate <-chan struct{}
	// Usage, when non-nil, replaces the estimate of ceil(len/4) tokens of
	// the prompt messages and of the content.
	Usage *Usage
	// Header is added to the response.
	Header http.Header
	// ToolCalls, when set, are the message's native tool calls (OpenAI's
	// tools wire format); the finish reason is then "tool_calls".
	ToolCalls []ToolCall
}

// ToolCall is one native tool call of a scripted reply.
type ToolCall struct {
	// ID is the call's id; empty makes "call_N", N counting from 1 across
	// the server's replies.
	ID   string
	Name string
	// Arguments is the JSON object of arguments, sent as a string.
	Arguments string
}

// ToolCallReply answers with one native tool call and no content.
func ToolCallReply(name, arguments string) Reply {
	return Reply{ToolCalls: []ToolCall{{Name: name, Arguments: arguments}}}
}

// ContentReply answers with content.
func ContentReply(content string) Reply { return Reply{Content: content} }

// ErrorReply answers with an HTTP error status and an OpenAI error body.
func ErrorReply(status int, message string) Reply {
	return Reply{Status: status, Error: message}
}

// RawReply answers with body verbatim; status 0 means 200.
func RawReply(status int, body string) Reply {
	return Reply{Status: status, Raw: []byte(body)}
}

// After returns r delayed by d.
func (r Reply) After(d time.Duration) Reply {
	r.Delay = d
	return r
}

// Until returns r held back until gate is closed.
func (r Reply) Until(gate <-chan struct{}) Reply {
	r.Gate = gate
	return r
}

// WithUsage returns r reporting the given token counts.
func (r Reply) WithUsage(prompt, completion int) Reply {
	r.Usage = &Usage{PromptTokens: prompt, CompletionTokens: completion}
	return r
}

// WithHeader returns r with a response header added.
func (r Reply) WithHeader(key, value string) Reply {
	h := r.Header.Clone()
	if h == nil {
		h = make(http.Header)
	}
	h.Add(key, value)
	r.Header = h
	return r
}

// Call is one recorded chat completion request.
type Call struct {
	Request openai.ChatCompletionRequest
	Header  http.Header
	Body    []byte
}

// ModelServer is a scripted OpenAI-compatible chat server.
type ModelServer struct {
	// URL is the server's base URL without "/v1", e.g.
	// "http://127.0.0.1:41234"; clients use URL + "/v1".
	URL string

	closing   chan struct{}
	closeOnce sync.Once
	stop      func()

	mu             sync.Mutex
	replies        []Reply
	next           int
	calls          []Call
	exhausted      int
	modelLists     int
	allowExhausted bool
	active         int // chat handlers still running
	refuseTools    bool
	callIDs        int
	pricing        *wirePricing
	// arrived is closed (and replaced) when a request is recorded.
	arrived chan struct{}
}

// NewModelServer starts a scripted model server on a loopback port; it is
// closed when the test ends. The test fails at cleanup if a request found
// the script used up, unless AllowExhaustion was called.
func NewModelServer(t testing.TB, replies ...Reply) *ModelServer {
	t.Helper()
	s := newModelServer(replies)
	ts := httptest.NewServer(s.handler())
	s.URL = ts.URL
	s.stop = ts.Close
	t.Cleanup(func() {
		s.Close()
		s.mu.Lock()
		n, allowed, scripted := s.exhausted, s.allowExhausted, len(s.replies)
		s.mu.Unlock()
		if n > 0 && !allowed {
			t.Errorf("model server: %d chat request(s) arrived after the script's %d replies were used up", n, scripted)
		}
	})
	return s
}

// ServeModel starts a scripted model server listening on addr (for example
// "127.0.0.1:8081", or "127.0.0.1:0" for any port), for callers without a
// testing.TB such as testscript commands. It serves until ctx ends or Close
// is called; exhaustion is only recorded.
func ServeModel(ctx context.Context, addr string, replies []Reply) (*ModelServer, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for model server on %s: %w", addr, err)
	}
	s := newModelServer(replies)
	s.URL = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		// Serve returns ErrServerClosed after Close; any other error means
		// the listener broke, which clients see as failed connections.
		_ = srv.Serve(ln)
	}()
	s.stop = func() {
		_ = srv.Close()
		<-served
	}
	// Close is idempotent, so the hook may stay registered after a Close.
	context.AfterFunc(ctx, s.Close)
	return s, nil
}

func newModelServer(replies []Reply) *ModelServer {
	return &ModelServer{
		closing: make(chan struct{}),
		replies: slices.Clone(replies),
	}
}

// Close stops the server; requests waiting out a delay return at once. It
// is safe to call more than once.
func (s *ModelServer) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.stop()
	})
}

// AllowExhaustion tells a server from NewModelServer that requests past the
// end of the script are expected, so cleanup does not fail the test.
func (s *ModelServer) AllowExhaustion() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowExhausted = true
}

// RefuseTools makes the server answer every request that offers tools
// with HTTP 400, as llama-server without --jinja does, without using a
// scripted reply. The request is still recorded.
func (s *ModelServer) RefuseTools() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseTools = true
}

// refusing reports whether requests with tools are refused.
func (s *ModelServer) refusing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refuseTools
}

// record records a call that takes no reply.
func (s *ModelServer) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	s.notifyLocked()
}

// callID names a tool call that has no scripted id.
func (s *ModelServer) callID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callIDs++
	return fmt.Sprintf("call_%d", s.callIDs)
}

// Requests returns the chat completion requests received so far, in order,
// decoded from their wire bodies.
func (s *ModelServer) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	reqs := make([]openai.ChatCompletionRequest, len(s.calls))
	for i, c := range s.calls {
		reqs[i] = c.Request
	}
	return reqs
}

// Calls returns the chat completion requests received so far with their
// headers and raw bodies. The result is a copy.
func (s *ModelServer) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	calls := make([]Call, len(s.calls))
	for i, c := range s.calls {
		calls[i] = Call{Request: c.Request, Header: c.Header.Clone(), Body: slices.Clone(c.Body)}
	}
	return calls
}

// Exhausted returns how many chat requests arrived after the script was
// used up.
func (s *ModelServer) Exhausted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exhausted
}

// Remaining returns how many scripted replies have not been served.
func (s *ModelServer) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies) - s.next
}

// SetPrice makes GET /v1/models list a price for [DefaultModel] in
// OpenRouter's shape: "pricing": {"prompt": ..., "completion": ...}, in
// dollars per token as decimal strings (e.g. "0.000001" for $1 per million
// tokens).
func (s *ModelServer) SetPrice(prompt, completion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pricing = &wirePricing{Prompt: prompt, Completion: completion}
}

// ModelListRequests returns how many GET /v1/models requests arrived.
func (s *ModelServer) ModelListRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modelLists
}

// take records a call and hands out the next reply; ok is false when the
// script is used up, and scripted is then the script's length.
func (s *ModelServer) take(c Call) (reply Reply, scripted int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	s.notifyLocked()
	if s.next >= len(s.replies) {
		s.exhausted++
		return Reply{}, len(s.replies), false
	}
	reply = s.replies[s.next]
	s.next++
	return reply, len(s.replies), true
}

// inFlight returns how many chat handlers are still running.
func (s *ModelServer) inFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

func (s *ModelServer) setActive(delta int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active += delta
}

func (s *ModelServer) countModelList() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modelLists++
}

// notifyLocked wakes WaitRequests. Callers hold s.mu.
func (s *ModelServer) notifyLocked() {
	if s.arrived != nil {
		close(s.arrived)
		s.arrived = nil
	}
}

// WaitRequests waits until the server has received n chat requests (a
// delayed reply's request counts on arrival), or ctx ends.
func (s *ModelServer) WaitRequests(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		if len(s.calls) >= n {
			s.mu.Unlock()
			return nil
		}
		if s.arrived == nil {
			s.arrived = make(chan struct{})
		}
		ch := s.arrived
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %d model requests: %w", n, ctx.Err())
		case <-ch:
		}
	}
}
